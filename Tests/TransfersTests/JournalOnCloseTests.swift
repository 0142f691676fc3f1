import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import TransferEngine

/// A session that flushes nothing leaves its journal's write-ahead log at close instead of
/// flushing it into the journal; one that flushes checkpoints it. Either way the next reader, the
/// `sqlite3` program (Debian's sqlite3) and the session reopened, finds every commit.
@Suite("The journal at close", .timeLimit(.minutes(1)))
struct JournalOnCloseTests {
    @Test(
        "process-crash leaves the log, power-loss checkpoints it; both are read back whole",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs sqlite3 (Debian's sqlite3)"),
        arguments: [Durability.processCrash, .powerLoss])
    func closing(_ durability: Durability) async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                var configuration = TransferSessionConfiguration()
                configuration.durability = durability
                let track = try #require(catalog.tracks.first { $0.hasPreview }).id
                let destination = folder.appendingPathComponent("files/\(track).wav")
                let id = try await withSession(configuration, folder: folder) { session, _ in
                    let id = try await session.start(url: previewURL(url, track), destination: destination)
                    #expect(try await session.wait(for: id).state == .completed)
                    return id
                }
                let journal = folder.appendingPathComponent("session/test.journal.sqlite").path
                let log = try? FileManager.default.attributesOfItem(atPath: journal + "-wal")[.size] as? Int
                if durability == .processCrash {
                    #expect((log ?? 0) > 0, "the log should be left with the commits in it")
                } else {
                    #expect(log == nil, "the log should be checkpointed and removed")
                }
                #expect(
                    try await journalRows("SELECT state FROM transfer WHERE id = '\(id.rawValue)'", in: folder) == ["completed"])
                try await withSession(configuration, folder: folder) { session, _ in
                    #expect(await session.transfer(id)?.state == .completed)
                }
                let expected = try #require(catalog.preview(for: track)).data
                #expect(sha256Hex(try contents(destination)) == sha256Hex(expected))
            }
        }
    }
}
