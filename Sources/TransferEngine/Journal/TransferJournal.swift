import Foundation
import GRDB
import NetworkBasics
import SQLiteSettings

/// The session's journal: every transfer and its progress, in SQLite (WAL), so that a crash loses
/// nothing. The only door to the database.
final class TransferJournal: Sendable {
    /// The upsert, kept for the writer. Declared before the pool, so that it is let go of first
    /// (and were it not, the pool's connection would finish closing once it is).
    private let upsert = KeptStatement(sql: storeSQL)
    private let database: DatabasePool

    /// Opens (creating and migrating as needed) the journal at `path`.
    ///
    /// - Parameter checkpointsOnClose: Whether closing copies the write-ahead log into the journal
    ///   and flushes both (SQLite's default), or leaves the log for the next open: what a session
    ///   that flushes nothing wants. Either way every commit survives a crash of the process, and
    ///   the journal stays whole through a power cut (its latest commits may be lost).
    /// - Parameter cacheKiB: Each connection's page cache (`nil`: SQLite's default).
    init(path: String, checkpointsOnClose: Bool = true, cacheKiB: Int? = nil) throws(TransferError) {
        do {
            var configuration = Configuration()
            configuration.label = "halftunes.transfers"
            configuration.busyMode = .timeout(5)
            configuration.prepareDatabase { db in
                try db.applyDownloadSettings(cacheKiB: cacheKiB, checkpointsOnClose: checkpointsOnClose)
            }
            database = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(database)
        } catch {
            throw TransferError(.journal, "cannot open the transfer journal at \(path): \(error)", permanent: true)
        }
    }

    /// Opens the journal as ``init(path:checkpointsOnClose:cacheKiB:)`` does, on a thread of its
    /// own (``DatabaseOpening``), so that the task waiting holds none of Swift's cooperative threads.
    static func open(path: String, checkpointsOnClose: Bool, cacheKiB: Int?) async throws(TransferError) -> TransferJournal {
        try await DatabaseOpening.run(label: "halftunes.transfers.open") { () throws(TransferError) in
            try TransferJournal(path: path, checkpointsOnClose: checkpointsOnClose, cacheKiB: cacheKiB)
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "transfer") { t in
                t.primaryKey("id", .text)
                t.column("seq", .integer).notNull()
                t.column("url", .text).notNull()
                t.column("destination", .text).notNull()
                t.column("partialFile", .text).notNull()
                t.column("tag", .text)
                t.column("state", .text).notNull()
                t.column("receivedBytes", .integer).notNull()
                t.column("durableBytes", .integer).notNull()
                t.column("expectedBytes", .integer)
                t.column("etag", .text)
                t.column("lastModified", .text)
                t.column("contentType", .text)
                t.column("errorCode", .text)
                t.column("errorMessage", .text)
                t.column("errorPermanent", .boolean)
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.create(table: "meta") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
        }
        migrator.registerMigration("v2: request headers") { db in
            try db.alter(table: "transfer") { t in t.add(column: "requestHeaders", .text) }
        }
        return migrator
    }

    /// Every transfer, in queue order.
    func all() throws(TransferError) -> [TransferRecord] {
        try run(Self.inQueueOrder)
    }

    /// Every transfer in the journal at `path`, in queue order, read by a connection that writes
    /// nothing (no migration, no checkpoint of the log, no lock of the session): what a session
    /// that another process owns has recorded, as of its last commit. Empty when there is no
    /// journal yet, or its owner has not made its table yet.
    static func records(readingOnly path: String) throws(TransferError) -> [TransferRecord] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        do {
            var configuration = Configuration()
            configuration.label = "halftunes.transfers.look"
            configuration.readonly = true
            configuration.busyMode = .timeout(5)
            let database = try DatabaseQueue(path: path, configuration: configuration)
            return try database.read { db in
                guard try db.tableExists("transfer") else { return [] }
                return try inQueueOrder(db)
            }
        } catch {
            throw TransferError(.journal, "cannot read the transfer journal at \(path): \(error)", permanent: false)
        }
    }

    private static func inQueueOrder(_ db: Database) throws -> [TransferRecord] {
        try TransferRecord.order(Column("seq")).fetchAll(db)
    }

    /// Inserts or replaces a transfer.
    func save(_ record: TransferRecord) throws(TransferError) { try save([record]) }

    /// Inserts or replaces transfers and deletes others, in one transaction (one commit for a batch).
    func save(_ records: [TransferRecord], deleting deleted: [TransferID] = []) throws(TransferError) {
        guard !records.isEmpty || !deleted.isEmpty else { return }
        let now = Date()
        try write { db in
            // By index: each record read where it is, not copied out by an iterator.
            for index in records.indices { try self.store(records[index], updatedAt: now, in: db) }
            for id in deleted { try Self.remove(id, in: db) }
        }
    }

    /// One prepared statement, kept by the journal: no record encoding, no statement parsing
    /// and no hashing of its SQL per write (a batch of 2,000 small downloads writes the journal
    /// some 6,000 times).
    ///
    /// An upsert, not `INSERT OR REPLACE`: a known transfer's row is updated where it is (same
    /// rowid, its index entry untouched), where a replace deletes it and inserts it anew at the
    /// table's end, writing the old page, the last page and the index's page (and freeing pages).
    private func store(_ record: TransferRecord, updatedAt: Date, in db: Database) throws {
        try upsert.statement(in: db).run { values in
            values.bind(record.id)
            values.bind(record.seq)
            values.bind(record.url)
            values.bind(record.destination)
            values.bind(record.partialFile)
            values.bind(record.tag)
            values.bind(record.state)
            values.bind(record.receivedBytes)
            values.bind(record.durableBytes)
            values.bind(record.expectedBytes)
            values.bind(record.etag)
            values.bind(record.lastModified)
            values.bind(record.contentType)
            values.bind(record.errorCode)
            values.bind(record.errorMessage)
            values.bind(record.errorPermanent)
            values.bind(UTCTimestamp.text(record.createdAt))
            values.bind(UTCTimestamp.text(updatedAt))
            values.bind(record.requestHeaders)
        }
    }

    /// The upsert of ``store(_:updatedAt:in:)``, from one list of columns (the order of its arguments).
    private static let storeSQL: String = {
        let columns = [
            "id", "seq", "url", "destination", "partialFile", "tag", "state", "receivedBytes", "durableBytes",
            "expectedBytes", "etag", "lastModified", "contentType", "errorCode", "errorMessage", "errorPermanent",
            "createdAt", "updatedAt", "requestHeaders",
        ]
        return """
            INSERT INTO transfer (\(columns.joined(separator: ", ")))
            VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))
            ON CONFLICT(id) DO UPDATE SET \(columns.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
            """
    }()

    /// Records what a response told about a transfer (its validator, length, bytes so far), at once,
    /// from any thread: the engine calls it before the first byte of a body reaches the disk (for
    /// a fresh transfer, once that body's checkpoint is due; see `BodyWriter`).
    func recordCheckpoint(_ id: TransferID, _ checkpoint: Checkpoint) throws(TransferError) {
        try write { db in
            try db.cachedStatement(
                sql: """
                    UPDATE transfer SET etag = ?, lastModified = ?, expectedBytes = ?, receivedBytes = ?,
                        durableBytes = COALESCE(?, MIN(durableBytes, ?)), contentType = COALESCE(?, contentType),
                        updatedAt = ?
                    WHERE id = ?
                    """
            ).run { values in
                values.bind(checkpoint.validator.etag)
                values.bind(checkpoint.validator.lastModified)
                values.bind(checkpoint.expectedBytes)
                values.bind(checkpoint.receivedBytes)
                values.bind(checkpoint.durableBytes)
                values.bind(checkpoint.receivedBytes)
                values.bind(checkpoint.contentType)
                values.bind(UTCTimestamp.text(Date()))
                values.bind(id.rawValue)
            }
        }
    }

    private static func remove(_ id: TransferID, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM transfer WHERE id = ?").run { $0.bind(id.rawValue) }
    }

    /// A stored setting.
    func meta(_ key: String) throws(TransferError) -> String? {
        try run { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) }
    }

    /// Stores a setting.
    func setMeta(_ key: String, _ value: String) throws(TransferError) {
        try write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }

    private func run<T>(_ body: (Database) throws -> T) throws(TransferError) -> T {
        do { return try database.read(body) } catch {
            throw TransferError(.journal, "cannot read the transfer journal: \(error)", permanent: false)
        }
    }

    private func write(_ body: (Database) throws -> Void) throws(TransferError) {
        do { try database.writeInPreparedTransaction(body) } catch {
            throw TransferError(.journal, "cannot write the transfer journal: \(error)", permanent: false)
        }
    }
}
