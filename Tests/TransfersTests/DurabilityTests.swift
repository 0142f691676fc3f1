import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import TransferEngine

/// What survives a machine crash: only the bytes flushed at a checkpoint are trusted after a
/// reboot (a process crash keeps everything the kernel was given; see the crash tests).
@Suite("Durability", .timeLimit(.minutes(1)))
struct DurabilityTests {
    /// What a download interrupted half way, then "rebooted", came to.
    private struct Outcome {
        var durableBytes: Int64
        var bytesOnDiskAtCrash: Int64
        var resumedWith: PreviewRequest
        var byteExact: Bool
    }

    /// Downloads about half of a preview, stops the session the way a crash finds it (the
    /// transfer still queued), turns every byte past the journaled durable length to zeros (what a
    /// power cut may do to unflushed pages), marks the journal as written in an earlier boot, and
    /// reopens the session to finish.
    private func interruptByPowerCut(_ durability: Durability) async throws -> Outcome {
        try await withDemoCatalog { catalog, url in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 1_500_000))
            let source = await catalog.preview(for: 1004)!.data
            // Held short of the end, so the crash finds it unfinished however slow the machine.
            catalog.hold(1004, atByte: source.count * 3 / 4)
            let configuration = TransferSessionConfiguration(checkpointBytes: 128 << 10, durability: durability)
            return try await withTemporaryDirectory { folder in
                let destination = folder.appendingPathComponent("files/song.wav")
                let partial = destination.path + ".part"
                let journalPath = folder.appendingPathComponent("session/test.journal.sqlite").path
                try await withSession(configuration, folder: folder) { session, _ in
                    let events = EventRecorder(session.events())
                    let id = try await session.start(url: previewURL(url, 1004), destination: destination)
                    await events.received(id, atLeast: Int64(source.count / 2))
                }
                let record = try #require(try TransferJournal(path: journalPath).all().first)
                #expect(record.transferState == .queued)
                let onDisk = PartialFile.length(at: partial)
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
                try handle.seek(toOffset: UInt64(record.durableBytes))
                try handle.write(contentsOf: Data(count: Int(onDisk - record.durableBytes) + 4096))
                try handle.close()
                try TransferJournal(path: journalPath).setMeta("bootID", "a boot before this one")

                catalog.setFaults(PreviewFaults())
                catalog.release(1004)
                try await withSession(configuration, folder: folder) { session, _ in
                    let id = try #require(await session.transfers().first?.id)
                    #expect(try await session.wait(for: id).state == .completed)
                }
                return Outcome(
                    durableBytes: record.durableBytes, bytesOnDiskAtCrash: onDisk,
                    resumedWith: try #require(catalog.previewRequests.last { $0.trackId == 1004 }),
                    byteExact: sha256Hex(try contents(destination)) == sha256Hex(source))
            }
        }
    }

    @Test("checkpoints journal flushed lengths; after a reboot the partial file is cut back to them and resumed")
    func rebootKeepsFlushedBytesOnly() async throws {
        let outcome = try await interruptByPowerCut(.powerLoss)
        #expect(outcome.durableBytes >= 128 << 10, "a checkpoint every 128 KiB was journaled")
        #expect(outcome.durableBytes <= outcome.bytesOnDiskAtCrash, "never more durable bytes than are on disk")
        #expect(outcome.resumedWith.range == "bytes=\(outcome.durableBytes)-", "resumed from the last flushed byte")
        #expect(outcome.resumedWith.status == 206)
        #expect(outcome.byteExact)
    }

    @Test("without flushes nothing is trusted after a reboot: the download starts over, byte-exact")
    func processCrashDurabilityStartsOverAfterReboot() async throws {
        let outcome = try await interruptByPowerCut(.processCrash)
        #expect(outcome.durableBytes == 0)
        #expect(outcome.bytesOnDiskAtCrash > 0)
        #expect(outcome.resumedWith.range == nil)
        #expect(outcome.resumedWith.status == 200)
        #expect(outcome.byteExact)
    }
}
