import Foundation
import GRDB

/// The session's journal: every transfer and its progress, in SQLite (WAL), so that a crash loses
/// nothing. The only door to the database.
final class TransferJournal: Sendable {
    /// The journal, closed once by ``close()`` and never touched after.
    private let door: DatabaseDoor

    /// The path that keeps a journal in memory: nothing on disk, nothing after the process.
    static let inMemory = ":memory:"

    /// Opens (creating and migrating as needed) the journal at `path` (or in memory, at
    /// ``inMemory``). Every commit survives a crash of the process; WAL keeps the journal whole
    /// through a power cut.
    init(path: String) throws(TransferError) {
        do {
            var configuration = Configuration()
            configuration.label = "halftunes.transfers"
            configuration.busyMode = .timeout(5)
            let database: any DatabaseWriter =
                path == Self.inMemory
                ? try DatabaseQueue(configuration: configuration) : try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(database)
            door = DatabaseDoor(database)
        } catch {
            throw TransferError(.journal, "cannot open the transfer journal at \(path): \(error)", permanent: true)
        }
    }

    /// Closes the journal now, its log folded in and deleted (``DatabaseDoor/close()``).
    func close() { door.close() }

    /// Opens the journal as ``init(path:)`` does, on a thread of its own (``DatabaseOpening``),
    /// so that the task waiting holds none of Swift's cooperative threads.
    static func open(path: String) async throws(TransferError) -> TransferJournal {
        try await DatabaseOpening.run(label: "halftunes.transfers.open") { () throws(TransferError) in
            try TransferJournal(path: path)
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
        migrator.registerMigration("v3: content encoding") { db in
            try db.alter(table: "transfer") { t in t.add(column: "contentEncoding", .text) }
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
            let database = try DatabaseQueue(path: DatabaseOpening.readOnlyName(path: path), configuration: configuration)
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
            for record in records { try Self.store(record, updatedAt: now, in: db) }
            for id in deleted { try db.execute(sql: "DELETE FROM transfer WHERE id = ?", arguments: [id.rawValue]) }
        }
    }

    /// An upsert, not `INSERT OR REPLACE`: a known transfer's row is updated where it is.
    private static func store(_ record: TransferRecord, updatedAt: Date, in db: Database) throws {
        let values: [(any DatabaseValueConvertible)?] = [
            record.id, record.seq, record.url, record.destination, record.partialFile, record.tag, record.state,
            record.receivedBytes, record.durableBytes, record.expectedBytes, record.etag, record.lastModified,
            record.contentType, record.errorCode, record.errorMessage, record.errorPermanent,
            record.createdAt, updatedAt, record.requestHeaders, record.contentEncoding,
        ]
        try db.cachedStatement(sql: storeSQL).execute(arguments: StatementArguments(values))
    }

    /// The upsert of ``store(_:updatedAt:in:)``, from one list of columns (the order of its arguments).
    private static let storeSQL: String = {
        let columns = [
            "id", "seq", "url", "destination", "partialFile", "tag", "state", "receivedBytes", "durableBytes",
            "expectedBytes", "etag", "lastModified", "contentType", "errorCode", "errorMessage", "errorPermanent",
            "createdAt", "updatedAt", "requestHeaders", "contentEncoding",
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
                        contentEncoding = COALESCE(?, contentEncoding), updatedAt = ?
                    WHERE id = ?
                    """
            ).execute(arguments: [
                checkpoint.validator.etag, checkpoint.validator.lastModified, checkpoint.expectedBytes,
                checkpoint.receivedBytes, checkpoint.durableBytes, checkpoint.receivedBytes, checkpoint.contentType,
                checkpoint.contentEncoding, Date(), id.rawValue,
            ])
        }
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
        guard let database = door.open else { throw TransferError(.journal, "the transfer journal is closed", permanent: false) }
        do { return try database.read(body) } catch {
            throw TransferError(.journal, "cannot read the transfer journal: \(error)", permanent: false)
        }
    }

    private func write(_ body: (Database) throws -> Void) throws(TransferError) {
        guard let database = door.open else { throw TransferError(.journal, "the transfer journal is closed", permanent: false) }
        do { try database.write(body) } catch {
            throw TransferError(.journal, "cannot write the transfer journal: \(error)", permanent: false)
        }
    }
}
