import Foundation
import GRDB
import SQLiteSettings
import TestSupport
import Testing

/// `writeInPreparedTransaction` keeps `write`'s promises: all of a transaction or none of it,
/// the first error thrown, and the connection ready for the next one (its prepared `BEGIN` and
/// `COMMIT` reused). What is committed is read back by Debian's `sqlite3`, not by GRDB.
@Suite("Transactions with prepared BEGIN and COMMIT")
struct PreparedTransactionTests {
    struct Refused: Error {}

    private func withStore<T>(_ body: (DatabasePool, String) async throws -> T) async throws -> T {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("store.sqlite").path
            let pool = try DatabasePool(path: path)
            try await pool.write { db in
                try db.execute(sql: "CREATE TABLE song (id INTEGER PRIMARY KEY, name TEXT NOT NULL CHECK (name != ''))")
            }
            return try await body(pool, path)
        }
    }

    /// The names in the table, as the `sqlite3` program reads them.
    private func names(at path: String) async throws -> [String] {
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/sqlite3"), ["-readonly", path, "SELECT name FROM song ORDER BY id"])
        try #require(result.status == 0, "sqlite3: \(result.stderr)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test(
        "commits every statement, rolls back all of one that fails or throws, and runs again after",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs sqlite3 (Debian's sqlite3)"))
    func allOrNothing() async throws {
        try await withStore { pool, path in
            try pool.writeInPreparedTransaction { db in
                try db.execute(sql: "INSERT INTO song (id, name) VALUES (1, 'Wish You Were Here')")
                try db.execute(sql: "INSERT INTO song (id, name) VALUES (2, 'Time')")
            }
            // A statement fails half way: the row before it goes too.
            #expect(throws: DatabaseError.self) {
                try pool.writeInPreparedTransaction { db in
                    try db.execute(sql: "INSERT INTO song (id, name) VALUES (3, 'Money')")
                    try db.execute(sql: "INSERT INTO song (id, name) VALUES (4, '')")
                }
            }
            // The caller throws: nothing it wrote stays.
            #expect(throws: Refused.self) {
                try pool.writeInPreparedTransaction { db in
                    try db.execute(sql: "DELETE FROM song")
                    throw Refused()
                }
            }
            // And the connection takes the next transaction, returning its value.
            let count = try pool.writeInPreparedTransaction { db in
                try db.execute(sql: "INSERT INTO song (id, name) VALUES (5, 'Us and Them')")
                return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM song") ?? 0
            }
            #expect(count == 3)
            #expect(try await names(at: path) == ["Wish You Were Here", "Time", "Us and Them"])
        }
    }
}
