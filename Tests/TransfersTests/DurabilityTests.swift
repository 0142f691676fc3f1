import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import Transfers

/// What survives a machine crash: only the bytes flushed at a checkpoint are trusted after a
/// reboot (a process crash keeps everything the kernel was given; see the crash tests).
@Suite("Durability", .timeLimit(.minutes(1)))
struct DurabilityTests {
    @Test("checkpoints journal flushed lengths; after a reboot the partial file is cut back to them and resumed")
    func rebootKeepsFlushedBytesOnly() async throws {
        try await withDemoCatalog { catalog, url in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 1_500_000))
            let source = catalog.preview(for: 1004)!.data
            let configuration = TransferSessionConfiguration(checkpointBytes: 128 << 10)
            try await withTemporaryDirectory { folder in
                let destination = folder.appendingPathComponent("files/song.wav")
                let partial = destination.path + ".part"
                let journalPath = folder.appendingPathComponent("session/test.journal.sqlite").path

                // Download about half, then stop the way a crash would find it: still queued.
                try await withSession(configuration, folder: folder) { session, _ in
                    let events = EventRecorder(session.events())
                    let id = try await session.start(url: previewURL(url, 1004), destination: destination)
                    await events.received(id, atLeast: Int64(source.count / 2))
                }
                let record = try #require(try TransferJournal(path: journalPath).all().first)
                let onDisk = PartialFile.length(at: partial)
                #expect(record.transferState == .queued)
                #expect(record.durableBytes >= 128 << 10, "a checkpoint every 128 KiB was journaled")
                #expect(record.durableBytes <= onDisk, "never more durable bytes than are on disk")
                #expect(record.durableBytes < Int64(source.count))

                // A power cut loses what was not flushed: here, the bytes past the checkpoint turn to zeros.
                let durable = record.durableBytes
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
                try handle.seek(toOffset: UInt64(durable))
                try handle.write(contentsOf: Data(count: Int(onDisk - durable) + 4096))
                try handle.close()
                try TransferJournal(path: journalPath).setMeta("bootID", "a boot before this one")

                catalog.setFaults(PreviewFaults())
                try await withSession(configuration, folder: folder) { session, _ in
                    let id = try #require(await session.transfers().first?.id)
                    #expect(try await session.wait(for: id).state == .completed)
                }
                #expect(sha256Hex(try contents(destination)) == sha256Hex(source))
                let last = try #require(catalog.previewRequests.last { $0.trackId == 1004 })
                #expect(last.range == "bytes=\(durable)-", "resumed from the last flushed byte")
                #expect(last.status == 206)
            }
        }
    }
}
