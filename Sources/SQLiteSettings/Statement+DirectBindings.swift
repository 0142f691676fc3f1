import GRDB
import GRDBSQLite

extension Statement {
    /// Runs a statement once, with the values `bind` gives its parameters in order, bound with
    /// SQLite's own calls (the rows it may give are passed over).
    ///
    /// For the few statements run thousands of times a batch (a journal's upsert, a library's):
    /// GRDB's `execute(arguments:)` builds a `StatementArguments` of existentials (~10 k
    /// instructions for 19 values) and binds them through nested `withCString` closures (~15 k);
    /// these bindings cost a call each. The statement runs as `execute` runs it, without GRDB's
    /// notices to transaction observers (the stores that use it have none).
    ///
    /// - Throws: `DatabaseError` when SQLite fails, or when `bind` gives a number of values the
    ///   statement does not take.
    public func run(binding bind: (inout StatementBindings) throws -> Void) throws {
        try step(binding: bind) { _ in }
    }

    /// Runs a statement once as ``run(binding:)`` does, giving the integer in the first column of
    /// its first row (an `UPDATE … RETURNING` of a counter, say): `nil` when it gives no row or
    /// `NULL`.
    public func runReturningInteger(binding bind: (inout StatementBindings) throws -> Void) throws -> Int64? {
        var value: Int64?
        try step(binding: bind) { handle in
            if value == nil, sqlite3_column_type(handle, 0) != SQLITE_NULL { value = sqlite3_column_int64(handle, 0) }
        }
        return value
    }

    /// Binds, then steps the statement to its end (each row given to `row`), and resets it.
    private func step(
        binding bind: (inout StatementBindings) throws -> Void, row: (SQLiteStatement) -> Void
    ) throws {
        let handle = sqliteStatement
        sqlite3_reset(handle)
        var bindings = StatementBindings(handle)
        try bind(&bindings)
        let expected = sqlite3_bind_parameter_count(handle)
        guard bindings.count == expected else {
            sqlite3_clear_bindings(handle)
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "\(bindings.count) values for \(expected) parameters", sql: sql)
        }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_ROW {
                row(handle)
                continue
            }
            guard code == SQLITE_DONE else {
                let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))
                sqlite3_reset(handle)
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
            }
            sqlite3_reset(handle)
            return
        }
    }
}

/// The values of a statement's parameters, bound in order (see ``GRDB/Statement/run(binding:)``).
/// Text is copied by SQLite as it is bound; `nil` binds `NULL`.
public struct StatementBindings {
    private let handle: SQLiteStatement
    /// How many values were bound.
    public private(set) var count: Int32 = 0

    init(_ handle: SQLiteStatement) { self.handle = handle }

    /// Binds text.
    public mutating func bind(_ value: String?) {
        count += 1
        guard var value else {
            sqlite3_bind_null(handle, count)
            return
        }
        let index = count
        // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        value.withUTF8 { bytes in
            guard let base = bytes.baseAddress else {
                _ = sqlite3_bind_text(handle, index, "", 0, transient)
                return
            }
            _ = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, Int32(bytes.count), transient)
            }
        }
    }

    /// Binds an integer.
    public mutating func bind(_ value: Int64?) {
        count += 1
        if let value { sqlite3_bind_int64(handle, count, value) } else { sqlite3_bind_null(handle, count) }
    }

    /// Binds an integer.
    public mutating func bind(_ value: Int?) { bind(value.map(Int64.init)) }

    /// Binds a Boolean as SQLite stores one (0 or 1).
    public mutating func bind(_ value: Bool?) { bind(value.map { Int64($0 ? 1 : 0) }) }
}
