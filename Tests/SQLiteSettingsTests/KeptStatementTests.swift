import Foundation
import GRDB
import SQLiteSettings
import Testing

/// `KeptStatement`: one prepared statement a connection, and a pool that closes whole however its
/// owner lets go of the statement and the pool.
@Suite("Statements kept by their owner")
struct KeptStatementTests {
    private static let insert = "INSERT INTO t (name) VALUES (?)"

    private func names(_ reader: some DatabaseReader) throws -> [String] {
        try reader.read { db in try String.fetchAll(db, sql: "SELECT name FROM t ORDER BY rowid") }
    }

    @Test("a kept statement is prepared once a connection; another connection gets its own")
    func connections() throws {
        let (first, second) = (try DatabaseQueue(), try DatabaseQueue())
        for queue in [first, second] { try queue.write { try $0.execute(sql: "CREATE TABLE t (name TEXT)") } }
        let kept = KeptStatement(sql: Self.insert)
        let (a, b) = try first.write { db in (try kept.statement(in: db), try kept.statement(in: db)) }
        #expect(a === b, "the same connection, the same statement")
        try first.write { db in try kept.statement(in: db).run { $0.bind("one") } }
        let other = try second.write { db in
            let statement = try kept.statement(in: db)
            try statement.run { $0.bind("two") }
            return statement
        }
        #expect(other !== a, "prepared anew for the other connection")
        try first.write { db in try kept.statement(in: db).run { $0.bind("three") } }
        #expect(try names(first) == ["one", "three"])
        #expect(try names(second) == ["two"])
    }

    /// An owner of a pool and a kept statement, as the journal and the library are, in either order.
    private final class Owner {
        var kept: KeptStatement?
        var pool: DatabasePool?

        init(path: String) throws {
            kept = KeptStatement(sql: KeptStatementTests.insert)
            pool = try DatabasePool(path: path)
            try pool?.write { try $0.execute(sql: "CREATE TABLE t (name TEXT)") }
        }

        func add(_ name: String) throws {
            guard let kept, let pool else { return }
            try pool.write { db in try kept.statement(in: db).run { $0.bind(name) } }
        }
    }

    @Test(
        "a pool closes whole, its log checkpointed and gone, whether the statement or the pool goes first",
        arguments: [true, false])
    func closes(statementFirst: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "kept-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "store.sqlite").path
        var owner: Owner? = try Owner(path: path)
        for name in ["a", "b", "c"] { try owner?.add(name) }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the pool writes ahead")
        if statementFirst {
            owner?.kept = nil
            owner?.pool = nil
        } else {
            owner?.pool = nil
            owner?.kept = nil
        }
        owner = nil
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the log is checkpointed and removed at close")
        #expect(try names(DatabaseQueue(path: path)) == ["a", "b", "c"])
    }
}
