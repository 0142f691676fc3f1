import Foundation
import GRDB
import SQLiteSettings
import Testing

/// `Statement.run(binding:)`: values bound with SQLite's own calls land as GRDB's arguments
/// would, read back by GRDB; its failures are GRDB's `DatabaseError`s, and the statement stays
/// usable, by itself and by GRDB.
@Suite("Statements run with values bound directly")
struct DirectBindingsTests {
    private func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(
                sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, size INTEGER, flag INTEGER, note TEXT NOT NULL)")
        }
        return queue
    }

    private struct Row: Equatable {
        var id: Int64, name: String?, size: Int64?, flag: Bool?, note: String
    }

    private func rows(_ queue: DatabaseQueue) throws -> [Row] {
        try queue.read { db in
            try GRDB.Row.fetchAll(db, sql: "SELECT * FROM t ORDER BY id").map {
                Row(id: $0["id"], name: $0["name"], size: $0["size"], flag: $0["flag"], note: $0["note"])
            }
        }
    }

    @Test("text (empty, non-ASCII, with a zero byte), integers, Booleans and NULLs land as bound")
    func values() throws {
        let queue = try database()
        let wanted = [
            Row(id: 1, name: "Ünïcödé ✓ 😀", size: Int64.max, flag: true, note: ""),
            Row(id: 2, name: nil, size: nil, flag: nil, note: "a\u{0}b"),
            Row(id: 3, name: "x", size: -1, flag: false, note: String(repeating: "long ", count: 1_000)),
        ]
        try queue.write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?)")
            for row in wanted {
                try statement.run { values in
                    values.bind(row.id)
                    values.bind(row.name)
                    values.bind(row.size)
                    values.bind(row.flag)
                    values.bind(row.note)
                }
            }
        }
        // GRDB reads text up to a zero byte: the zero byte's note is checked by its length.
        var read = try rows(queue)
        #expect(read[1].note == "a")
        read[1].note = wanted[1].note
        #expect(read == wanted)
        let noteBytes = try queue.read { db in
            try Int.fetchOne(db, sql: "SELECT length(CAST(note AS BLOB)) FROM t WHERE id = 2")
        }
        #expect(noteBytes == 3)
    }

    @Test("a failure is SQLite's error, and the statement runs again after it, by itself and by GRDB")
    func failure() throws {
        let queue = try database()
        try queue.write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO t (id, note) VALUES (?, ?)")
            try statement.run { values in
                values.bind(1 as Int64)
                values.bind("first")
            }
            #expect {
                try statement.run { values in
                    values.bind(1 as Int64)
                    values.bind("again")
                }
            } throws: { error in
                (error as? DatabaseError)?.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY
            }
            #expect {
                try statement.run { values in
                    values.bind(2 as Int64)
                    values.bind(nil as String?)
                }
            } throws: { error in
                (error as? DatabaseError)?.extendedResultCode == .SQLITE_CONSTRAINT_NOTNULL
            }
            try statement.run { values in
                values.bind(2 as Int64)
                values.bind("second")
            }
            try statement.execute(arguments: [3, "third"])
        }
        #expect(try rows(queue).map(\.note) == ["first", "second", "third"])
    }

    @Test("a statement's first integer: a counter's new value, nil for no row or NULL")
    func returningInteger() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE counter (id INTEGER PRIMARY KEY, value INTEGER)")
            try db.execute(sql: "INSERT INTO counter VALUES (1, 10), (2, NULL), (3, 30)")
            let add = try db.makeStatement(sql: "UPDATE counter SET value = value + ? WHERE id = ? RETURNING value")
            for (amount, wanted) in [(5, 15), (100, 115)] {
                let value = try add.runReturningInteger { values in
                    values.bind(amount)
                    values.bind(1)
                }
                #expect(value == Int64(wanted))
            }
            #expect(
                try add.runReturningInteger { values in
                    values.bind(1)
                    values.bind(2)
                } == nil)
            #expect(
                try add.runReturningInteger { values in
                    values.bind(1)
                    values.bind(9)
                } == nil)
            let all = try db.makeStatement(sql: "UPDATE counter SET value = 0 WHERE id <> ? RETURNING id")
            let first = try all.runReturningInteger { $0.bind(2) }
            #expect(first == 1 || first == 3)
        }
        // Every row a RETURNING statement touched is changed, not only the first it gave.
        let values = try queue.read { db in try Int64?.fetchAll(db, sql: "SELECT value FROM counter ORDER BY id") }
        #expect(values == [0, nil, 0])
    }

    @Test("too few or too many values is an error, and nothing is written")
    func wrongCount() throws {
        let queue = try database()
        try queue.write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO t (id, note) VALUES (?, ?)")
            for count in [1, 3] {
                #expect {
                    try statement.run { values in
                        for index in 0..<count { values.bind(Int64(index + 10)) }
                    }
                } throws: { error in
                    (error as? DatabaseError)?.message?.contains("\(count) values for 2 parameters") == true
                }
            }
        }
        #expect(try rows(queue).isEmpty)
    }
}
