import GRDB

extension Database {
    /// The page cache of a database of downloads' writer connection, in KiB (SQLite's default is
    /// 2,000 KiB).
    public static let writerCacheKiB = 512

    /// Makes this connection, when it is the writer, keep at most ``writerCacheKiB`` of pages in
    /// memory; readers keep SQLite's default.
    ///
    /// The writer of a batch's library or journal touches every page it appends to: with the
    /// default, a library of 2,000 tracks (1.1 MiB) stayed cached whole in a command's memory, a
    /// cache that its appends never read again. Readers answer the server's listings, which read
    /// the same pages over and over.
    ///
    /// Call it where the connection is prepared (`Configuration.prepareDatabase`).
    public func limitWriterCache() throws {
        guard !configuration.readonly else { return }
        try execute(sql: "PRAGMA cache_size = -\(Self.writerCacheKiB)")
    }
}
