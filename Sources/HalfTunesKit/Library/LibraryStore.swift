import Foundation
import GRDB
import ITunesSearch

/// A track in the library: its catalog data and the file it was saved to.
public struct LibraryItem: Sendable, Hashable, Codable {
    /// The track.
    public var track: Track
    /// The file's name inside the library folder.
    public var fileName: String
    /// When it was added.
    public var addedAt: Date
}

/// The library's index: which tracks are downloaded and where (SQLite via GRDB). The files
/// themselves are the truth: an item whose file is gone is not in the library.
final class LibraryStore: Sendable {
    private let database: DatabaseQueue
    let folder: URL

    private struct Row: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "libraryTrack"
        var id: Int
        var trackJSON: String
        var fileName: String
        var addedAt: Date
    }

    init(path: String, folder: URL) throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        database = try DatabaseQueue(path: path)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "libraryTrack") { t in
                t.primaryKey("id", .integer)
                t.column("trackJSON", .text).notNull()
                t.column("fileName", .text).notNull()
                t.column("addedAt", .datetime).notNull()
            }
        }
        try migrator.migrate(database)
    }

    /// Every item whose file is present, most recent first.
    func items() throws -> [LibraryItem] {
        let rows = try database.read { db in try Row.order(Column("addedAt").desc).fetchAll(db) }
        return rows.compactMap(item).filter { FileManager.default.fileExists(atPath: url(of: $0).path) }
    }

    /// The item for a track, if its file is present.
    func item(id: Int) throws -> LibraryItem? {
        let row = try database.read { db in try Row.fetchOne(db, key: id) }
        return row.flatMap(item).flatMap { FileManager.default.fileExists(atPath: url(of: $0).path) ? $0 : nil }
    }

    func add(_ track: Track, fileName: String, addedAt: Date = Date()) throws -> LibraryItem {
        let json = String(decoding: try JSONEncoder().encode(track), as: UTF8.self)
        let row = Row(id: track.id, trackJSON: json, fileName: fileName, addedAt: addedAt)
        try database.write { db in try row.save(db) }
        return LibraryItem(track: track, fileName: fileName, addedAt: row.addedAt)
    }

    func remove(id: Int) throws {
        _ = try database.write { db in try Row.deleteOne(db, key: id) }
    }

    /// The file of an item; always inside the library folder.
    func url(of item: LibraryItem) -> URL {
        folder.appendingPathComponent((item.fileName as NSString).lastPathComponent)
    }

    private func item(_ row: Row) -> LibraryItem? {
        guard let track = try? JSONDecoder().decode(Track.self, from: Data(row.trackJSON.utf8)) else { return nil }
        return LibraryItem(track: track, fileName: row.fileName, addedAt: row.addedAt)
    }
}
