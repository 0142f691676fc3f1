import GRDB

extension Database {
    /// Makes this connection keep at most `kibibytes` of pages in memory (SQLite's default is
    /// 2,000 KiB a connection).
    ///
    /// For a process that reads each page about once, as a command's batch does: with the
    /// default, the library of a 2,000-track batch (1.1 MiB) stayed cached whole by its writer and
    /// again by its reader. A server keeps the default: its listings read the same pages over and
    /// over (a cache of 512 KiB cost its listing page some 15 % of its requests a second).
    ///
    /// Call it where the connection is prepared (`Configuration.prepareDatabase`).
    public func limitCache(kibibytes: Int) throws {
        try execute(sql: "PRAGMA cache_size = -\(max(1, kibibytes))")
    }
}
