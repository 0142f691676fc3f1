import CSQLiteSettings
import GRDB

extension Database {
    /// Makes this connection leave the write-ahead log at close (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`)
    /// instead of checkpointing it into the database and flushing both: for databases of downloads
    /// that flush nothing. The next open reads the log; every commit survives a crash of the
    /// process, and WAL keeps the database whole through a power cut.
    ///
    /// Call it where the connection is prepared (`Configuration.prepareDatabase`).
    /// - Throws: SQLite's error when the setting is refused.
    public func leaveLogOnClose() throws {
        let code = halftunes_sqlite_checkpoint_on_close(UnsafeMutableRawPointer(sqliteConnection), 0)
        guard code == 0 else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
    }
}
