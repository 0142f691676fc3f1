import Foundation
import GRDB
import SQLiteSettings
import TestSupport
import Testing

/// `limitCache(kibibytes:)` sets the page cache of every connection it prepares, the writer's and
/// each reader's, as SQLite itself reports it.
@Suite("A database's page cache, limited")
struct CacheSizeTests {
    private func cacheSizes(limit: Int?) async throws -> (writer: Int, reader: Int) {
        try await withTemporaryDirectory { folder in
            var configuration = Configuration()
            if let limit { configuration.prepareDatabase { db in try db.limitCache(kibibytes: limit) } }
            let pool = try DatabasePool(path: folder.appendingPathComponent("store.sqlite").path, configuration: configuration)
            let writer = try await pool.write { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? 0 }
            let reader = try await pool.read { db in try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? 0 }
            return (writer, reader)
        }
    }

    @Test("each connection keeps at most the KiB given (a negative cache_size is KiB); none given, SQLite's 2,000")
    func limited() async throws {
        let limited = try await cacheSizes(limit: 512)
        #expect(limited.writer == -512)
        #expect(limited.reader == -512)
        let unlimited = try await cacheSizes(limit: nil)
        #expect(unlimited.writer == -2000)
        #expect(unlimited.reader == -2000)
    }
}
