import Foundation
import GRDB
import SQLiteSettings
import Testing

/// `StatementShelf`: one prepared statement a place and a connection, and a pool that closes whole
/// however its owner lets go of the shelf and the pool.
@Suite("Statements kept on a shelf")
struct StatementShelfTests {
    private static let insert = "INSERT INTO t (name) VALUES (?)"

    private func names(_ reader: some DatabaseReader) throws -> [String] {
        try reader.read { db in try String.fetchAll(db, sql: "SELECT name FROM t ORDER BY rowid") }
    }

    @Test("a place's statement is prepared once a connection; another connection gets its own")
    func places() throws {
        let (first, second) = (try DatabaseQueue(), try DatabaseQueue())
        for queue in [first, second] { try queue.write { try $0.execute(sql: "CREATE TABLE t (name TEXT)") } }
        let shelf = StatementShelf(places: 2)
        let (a, b, c) = try first.write { db in
            (
                try shelf.statement(at: 0, sql: Self.insert, in: db),
                try shelf.statement(at: 0, sql: Self.insert, in: db),
                try shelf.statement(at: 1, sql: "DELETE FROM t", in: db)
            )
        }
        #expect(a === b, "the same place, the same statement")
        #expect(a !== c)
        try first.write { db in try shelf.statement(at: 0, sql: Self.insert, in: db).run { $0.bind("one") } }
        let other = try second.write { db in
            let statement = try shelf.statement(at: 0, sql: Self.insert, in: db)
            try statement.run { $0.bind("two") }
            return statement
        }
        #expect(other !== a, "prepared anew for the other connection")
        try first.write { db in try shelf.statement(at: 0, sql: Self.insert, in: db).run { $0.bind("three") } }
        #expect(try names(first) == ["one", "three"])
        #expect(try names(second) == ["two"])
    }

    /// An owner of a pool and a shelf, as the journal and the library are, in either order.
    private final class Owner {
        var shelf: StatementShelf?
        var pool: DatabasePool?

        init(path: String) throws {
            shelf = StatementShelf(places: 1)
            pool = try DatabasePool(path: path)
            try pool?.write { try $0.execute(sql: "CREATE TABLE t (name TEXT)") }
        }

        func add(_ name: String) throws {
            guard let shelf, let pool else { return }
            try pool.write { db in try shelf.statement(at: 0, sql: StatementShelfTests.insert, in: db).run { $0.bind(name) } }
        }
    }

    @Test(
        "a pool closes whole, its log checkpointed and gone, whether the shelf or the pool goes first",
        arguments: [true, false])
    func closes(shelfFirst: Bool) throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "shelf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "store.sqlite").path
        var owner: Owner? = try Owner(path: path)
        for name in ["a", "b", "c"] { try owner?.add(name) }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the pool writes ahead")
        if shelfFirst {
            owner?.shelf = nil
            owner?.pool = nil
        } else {
            owner?.pool = nil
            owner?.shelf = nil
        }
        owner = nil
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the log is checkpointed and removed at close")
        #expect(try names(DatabaseQueue(path: path)) == ["a", "b", "c"])
    }
}
