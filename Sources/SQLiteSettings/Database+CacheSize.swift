import GRDB

extension Database {
    /// The page cache of each connection to a database of downloads, in KiB (SQLite's default is
    /// 2,000 KiB).
    public static let downloadsCacheKiB = 512

    /// Makes this connection keep at most ``downloadsCacheKiB`` of pages in memory.
    ///
    /// Call it where the connection is prepared (`Configuration.prepareDatabase`).
    public func limitCache() throws {
        try execute(sql: "PRAGMA cache_size = -\(Self.downloadsCacheKiB)")
    }
}
