import Foundation
import GRDB
import SQLiteSettings
import TestSupport
import Testing

/// `checkpointRarely` lets the write-ahead log grow past SQLite's 1,000 pages before copying it
/// into the database; a connection without it checkpoints at 1,000. Told by the database file's
/// size on disk: it grows only when a checkpoint copies pages into it.
@Suite("Rare checkpoints")
struct RareCheckpointTests {
    /// The database file's size after 1,500 commits of one 4 KiB page each.
    private func databaseSize(rarely: Bool) async throws -> (database: Int, log: Int) {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("store.sqlite").path
            var configuration = Configuration()
            if rarely { configuration.prepareDatabase { db in try db.checkpointRarely() } }
            let pool = try DatabasePool(path: path, configuration: configuration)
            try await pool.write { db in try db.execute(sql: "CREATE TABLE blob (id INTEGER PRIMARY KEY, bytes BLOB)") }
            let page = Data(repeating: 7, count: 3_000)
            for id in 1...1_500 {
                try await pool.write { db in try db.execute(sql: "INSERT INTO blob VALUES (?, ?)", arguments: [id, page]) }
            }
            let size = { (file: String) in
                (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            }
            return (size(path), size(path + "-wal"))
        }
    }

    @Test("1,500 pages of commits: checkpointed at 1,000 by default, not at all when rare")
    func rare() async throws {
        let usual = try await databaseSize(rarely: false)
        let rare = try await databaseSize(rarely: true)
        #expect(usual.database > 1_000 * 4_096, "the default checkpoint copied the log in: \(usual)")
        #expect(rare.database < 100 * 4_096, "no checkpoint yet: \(rare)")
        #expect(rare.log > 1_500 * 4_096, "the log holds every commit: \(rare)")
    }
}
