import GRDB

/// A prepared statement an owner keeps for its writer connection, instead of finding it in GRDB's
/// cache by its SQL.
///
/// GRDB's `cachedStatement(sql:)` finds a statement by hashing its SQL: ~2 k instructions for the
/// 700-byte upserts the journal and the library run thousands of times a batch. A kept statement
/// costs a comparison.
///
/// Use it from one connection only, inside that connection's access (a `DatabasePool`'s writer, in
/// its `write` closures), and keep it no longer than the pool: the owner that holds the pool holds
/// it. Asked with another connection than the one it was prepared on, it prepares anew. Released,
/// it finalizes its statement; a connection closed before that (GRDB closes with
/// `sqlite3_close_v2`) finishes closing, checkpoint included, once it is.
public final class KeptStatement: @unchecked Sendable {
    /// The statement's SQL.
    public let sql: String
    // Touched only inside the writer connection's serialized access (see the type's notes).
    private var prepared: (statement: Statement, connection: ObjectIdentifier)?

    /// A statement of `sql`, prepared when first asked for.
    public init(sql: String) { self.sql = sql }

    /// The statement, prepared on `db` the first time it is asked for there.
    /// - Throws: SQLite's error when ``sql`` does not prepare.
    public func statement(in db: Database) throws -> Statement {
        let connection = ObjectIdentifier(db)
        if let prepared, prepared.connection == connection { return prepared.statement }
        let statement = try db.makeStatement(sql: sql)
        prepared = (statement, connection)
        return statement
    }
}
