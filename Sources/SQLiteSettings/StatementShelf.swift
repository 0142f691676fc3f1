import GRDB

/// Prepared statements an owner keeps for its writer connection, found by their place on the
/// shelf instead of by their SQL.
///
/// GRDB's `cachedStatement(sql:)` finds a statement by hashing its SQL: ~2 k instructions for the
/// 700-byte upserts the journal and the library run thousands of times a batch. A shelf gives the
/// same prepared statement for the price of an array read.
///
/// Use it from one connection only, inside that connection's access (a `DatabasePool`'s writer, in
/// its `write` closures), and keep it no longer than the pool: the owner that holds the pool holds
/// the shelf. A shelf asked with another connection than the one it prepared its statements on
/// drops them and prepares anew. Released, it finalizes its statements; a connection closed before
/// that (GRDB closes with `sqlite3_close_v2`) finishes closing, checkpoint included, once they are.
public final class StatementShelf: @unchecked Sendable {
    // Touched only inside the writer connection's serialized access (see the type's notes).
    private var statements: [Statement?]
    private var connection: ObjectIdentifier?

    /// A shelf with `places` places, numbered from 0.
    public init(places: Int) {
        statements = Array(repeating: nil, count: places)
    }

    /// The statement at `place`, prepared from `sql` on `db` the first time it is asked for.
    /// - Throws: SQLite's error when `sql` does not prepare.
    public func statement(at place: Int, sql: String, in db: Database) throws -> Statement {
        let current = ObjectIdentifier(db)
        if connection != current {
            statements = Array(repeating: nil, count: statements.count)
            connection = current
        }
        if let statement = statements[place] { return statement }
        let statement = try db.makeStatement(sql: sql)
        statements[place] = statement
        return statement
    }
}
