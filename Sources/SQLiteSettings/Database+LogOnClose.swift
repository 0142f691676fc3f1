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

extension Database {
    /// The settings of a database of downloads that flush nothing, set together: its log left at
    /// close (``leaveLogOnClose()``) and checkpointed rarely (``checkpointRarely()``). Both keep
    /// every commit through a crash of the process and the database whole through a power cut.
    /// Call it where the connection is prepared (`Configuration.prepareDatabase`).
    public func flushLessOften() throws {
        try leaveLogOnClose()
        try checkpointRarely()
    }

    /// The settings a database of downloads (the transfer journal, the library) takes from its
    /// session's configuration, the same for both: a page cache of `cacheKiB` (``limitCache(kibibytes:)``;
    /// `nil` keeps SQLite's default) and, unless it `checkpointsOnClose`, its log flushed less often
    /// (``flushLessOften()``). Call it where the connection is prepared (`Configuration.prepareDatabase`).
    public func applyDownloadSettings(cacheKiB: Int?, checkpointsOnClose: Bool) throws {
        if let cacheKiB { try limitCache(kibibytes: cacheKiB) }
        if !checkpointsOnClose { try flushLessOften() }
    }

    /// Write-ahead log pages before an automatic checkpoint, for databases of downloads that
    /// flush nothing: 32 MiB of 4 KiB pages (SQLite's default is 1,000 pages).
    public static let rareCheckpointPages = 8192

    /// Makes this connection checkpoint its write-ahead log every ``rareCheckpointPages`` pages
    /// instead of every 1,000, and trim the log back to 4 MiB after each checkpoint.
    ///
    /// For databases of downloads that flush nothing. A checkpoint flushes the log, then the
    /// database (that is what keeps the database whole through a power cut), holding the writer
    /// until the device has the whole log: a batch of 2,000 small downloads wrote some 6,000 pages
    /// of journal log, six checkpoints, each a stall of every completion behind it. Checkpoints
    /// stay; they come less often, so a batch of a few thousand files ends before one, and the
    /// kernel has written most of the log back by the next. Opening a database with a large
    /// log costs no more (measured: 41 ms with 40 MiB of logs, 40 ms fresh).
    /// Call it where the connection is prepared (`Configuration.prepareDatabase`).
    public func checkpointRarely() throws {
        try execute(sql: "PRAGMA wal_autocheckpoint = \(Self.rareCheckpointPages)")
        try execute(sql: "PRAGMA journal_size_limit = \(4 << 20)")
    }
}
