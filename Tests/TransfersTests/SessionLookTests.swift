import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import TransferEngine

@Suite("A look at a session another owner holds", .timeLimit(.minutes(1)))
struct SessionLookTests {
    @Test("its transfers as journaled, a running one's bytes as on disk, while the owner keeps the lock and goes on")
    func besideTheOwner() async throws {
        try await withDemoCatalog { catalog, url in
            let preview = try #require(await catalog.preview(for: 1020))
            catalog.setFaults(PreviewFaults(bytesPerSecond: 400_000), for: 1020)
            catalog.setFaults(PreviewFaults(bytesPerSecond: 400_000), for: 1021)
            try await withSession { session, folder in
                let sessionFolder = folder.appendingPathComponent("session")
                let events = EventRecorder(session.events())
                let destination = folder.appendingPathComponent("song.wav")
                let id = try await session.start(url: previewURL(url, 1020), destination: destination, tag: "track:1020")
                let queued = try await session.start(
                    url: previewURL(url, 1021), destination: folder.appendingPathComponent("other.wav"), tag: "track:1021")
                _ = try await session.pause(queued)
                await events.received(id, atLeast: 100_000)

                let before = PartialFile.length(at: destination.path + ".part")
                let looked = try TransferSession.recordedTransfers(identifier: "test", directory: sessionFolder)
                let after = PartialFile.length(at: destination.path + ".part")
                #expect(looked.map(\.id) == [id, queued])
                #expect(looked.map(\.tag) == ["track:1020", "track:1021"])
                #expect(looked.map(\.state) == [.running, .paused])
                let running = try #require(looked.first)
                #expect(running.expectedBytes == Int64(preview.data.count))
                // The journal holds the bytes of its last checkpoint (every 64 MiB): the look
                // reads the partial file, as it stood between the two sizes taken around it.
                let journaled = try await journalRows(
                    "SELECT receivedBytes FROM transfer WHERE id = '\(id.rawValue)'", in: folder)
                #expect(journaled.compactMap { Int64($0) }.allSatisfy { $0 < before }, "journal: \(journaled)")
                #expect(running.receivedBytes >= before && running.receivedBytes <= after)

                // The look took no lock: the owner still holds it, and goes on to the end.
                await #expect {
                    try await TransferSession.open(identifier: "test", directory: sessionFolder, logger: quietLogger("t"))
                } throws: { ($0 as? TransferError)?.code == .sessionLocked }
                catalog.setFaults(PreviewFaults(), for: 1020)
                #expect(try await session.wait(for: id).state == .completed)
                #expect(sha256Hex(try contents(destination)) == sha256Hex(preview.data))
            }
        }
    }

    @Test("with no live owner nothing runs: a transfer the journal left queued or running is queued, with the bytes on disk")
    func noOwner() async throws {
        try await withDemoCatalog { catalog, url in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 400_000), for: 1020)
            try await withTemporaryDirectory { folder in
                let sessionFolder = folder.appendingPathComponent("session")
                let destination = folder.appendingPathComponent("song.wav")
                let session = try await TransferSession.open(
                    identifier: "test", directory: sessionFolder, logger: quietLogger("t"))
                let events = EventRecorder(session.events())
                let id = try await session.start(url: previewURL(url, 1020), destination: destination)
                await events.received(id, atLeast: 100_000)
                await session.close()
                let onDisk = PartialFile.length(at: destination.path + ".part")
                #expect(onDisk >= 100_000)
                // As a kill -9 mid-body leaves it: the start and the bytes since the last
                // checkpoint not journaled, and the owner's name in the lock file, its process gone.
                let journal = sessionFolder.appendingPathComponent("test.journal.sqlite").path
                let update = try await ChildProcess.run(
                    URL(fileURLWithPath: "/usr/bin/sqlite3"),
                    [journal, "UPDATE transfer SET state = 'running', receivedBytes = 0"])
                try #require(update.status == 0, "sqlite3: \(update.stderr)")
                let gone = try ChildProcess(URL(fileURLWithPath: "/bin/true"), [])
                _ = await gone.wait()
                let lock = sessionFolder.appendingPathComponent("test.lock")
                for owner in ["", "process \(gone.pid) (halftunes download)\n"] {
                    try Data(owner.utf8).write(to: lock)
                    let looked = try TransferSession.recordedTransfers(identifier: "test", directory: sessionFolder)
                    #expect(looked.map(\.state) == [.queued], "owner: \(owner)")
                    #expect(looked.map(\.receivedBytes) == [onDisk], "owner: \(owner)")
                }
                // Opened again, the session makes it the same.
                let reopened = try await TransferSession.open(
                    identifier: "test", directory: sessionFolder,
                    configuration: TransferSessionConfiguration(startsTransfers: false), logger: quietLogger("t"))
                let recovered = await reopened.transfer(id)
                await reopened.close()
                #expect(recovered?.state == .queued && recovered?.receivedBytes == onDisk)
            }
        }
    }

    @Test("a session never opened has none; a bad name is refused")
    func nothingRecorded() async throws {
        try await withTemporaryDirectory { folder in
            let none = try TransferSession.recordedTransfers(identifier: "never", directory: folder)
            #expect(none.isEmpty)
            #expect(filesIn(folder).isEmpty)
            #expect {
                try TransferSession.recordedTransfers(identifier: "../x", directory: folder)
            } throws: { ($0 as? TransferError)?.code == .invalidState }
        }
    }
}
