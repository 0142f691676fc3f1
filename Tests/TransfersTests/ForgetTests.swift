import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import TransferEngine

/// Forgetting finished transfers: at once in the session, in the journal with its next write.
/// The journal is read back with the `sqlite3` program (Debian's sqlite3), not through the engine.
@Suite("Forgetting transfers", .timeLimit(.minutes(1)))
struct ForgetTests {
    /// The ids of the journal's transfers, as sqlite3 reads them (WAL included).
    private func journaled(in folder: URL) async throws -> Set<String> {
        Set(try await journalRows("SELECT id FROM transfer", in: folder))
    }

    /// Downloads `tracks` one after the other into `folder`, each as `<track>.wav`, and returns
    /// their transfers, each checked completed.
    private func finished(_ tracks: [Int], from url: URL, into folder: URL, by session: TransferSession) async throws
        -> [TransferID]
    {
        var ids: [TransferID] = []
        for track in tracks {
            let id = try await session.start(
                url: previewURL(url, track), destination: folder.appendingPathComponent("\(track).wav"))
            #expect(try await session.wait(for: id).state == .completed)
            ids.append(id)
        }
        return ids
    }

    @Test(
        "a forgotten transfer leaves the session at once and the journal with its next write; none is left after close",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs sqlite3 (Debian's sqlite3)"))
    func forgottenWithTheNextWrite() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let session = try await TransferSession.open(
                    identifier: "test", directory: folder.appendingPathComponent("session"), logger: quietLogger("t"))
                let ids = try await finished([1001, 1019], from: url, into: folder, by: session)
                #expect(try await journaled(in: folder) == Set(ids.map(\.rawValue)))

                try await session.forget(ids[0])
                #expect(await session.transfer(ids[0]) == nil)
                #expect(try await journaled(in: folder) == Set(ids.map(\.rawValue)))  // no commit of its own

                let third = try await session.start(
                    url: previewURL(url, 1020), destination: folder.appendingPathComponent("1020.wav"))
                #expect(try await journaled(in: folder) == [ids[1].rawValue, third.rawValue])  // went with that write
                #expect(try await session.wait(for: third).state == .completed)

                try await session.forget(ids[1])
                try await session.forget(third)
                await session.close()
                #expect(try await journaled(in: folder).isEmpty)
                let reopened = try await TransferSession.open(
                    identifier: "test", directory: folder.appendingPathComponent("session"), logger: quietLogger("t"))
                #expect(await reopened.transfers().isEmpty)
                await reopened.close()
                for track in [1001, 1019, 1020] {
                    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(track).wav").path))
                }
            }
        }
    }

    @Test(
        "forgetting many: the deletes are written in batches, never more than a batch waiting",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs sqlite3 (Debian's sqlite3)"))
    func batches() async throws {
        try await withDemoCatalog { _, url in
            try await withSession { session, folder in
                let count = TransferSession.forgottenBatch + 6
                var ids: [TransferID] = []
                for index in 0..<count {
                    let destination = folder.appendingPathComponent("files/\(index).wav")
                    ids.append(try await session.start(url: previewURL(url, 1001), destination: destination))
                    let ended = try await session.wait(for: ids.last!)
                    #expect(ended.state == .completed, "\(ended.failure.map(String.init(describing:)) ?? "no failure")")
                }
                for id in ids { try await session.forget(id) }
                let left = try await journaled(in: folder)
                #expect(left == Set(ids.suffix(6).map(\.rawValue)))
            }
        }
    }

    @Test("forgetting a batch: the finished go; an unknown and an unfinished transfer are refused, saying why")
    func forgetsABatch() async throws {
        try await withDemoCatalog { catalog, url in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 100_000), for: 1003)
            try await withSession { session, folder in
                let done = try await finished([1001, 1019], from: url, into: folder, by: session)
                let slow = try await session.start(
                    url: previewURL(url, 1003), destination: folder.appendingPathComponent("1003.wav"))
                let unknown = TransferID(rawValue: "no-such-transfer")
                let refusals = try await session.forget([done[0], unknown, slow, done[1]])
                #expect(Set(refusals.keys) == [unknown, slow])
                #expect(refusals[unknown]?.code == .unknownTransfer)
                #expect(refusals[slow]?.code == .invalidState)
                for id in done { #expect(await session.transfer(id) == nil) }
                #expect(await session.transfer(slow) != nil)
                try await session.cancel(slow)
            }
        }
    }
}
