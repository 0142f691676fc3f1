import Foundation
import GRDB
import ITunesSearch
import Synchronization
import TransferEngine

/// A track in the library: its catalog data and the file it was saved to.
public struct LibraryItem: Sendable, Hashable, Codable {
    /// The track.
    public var track: Track
    /// The file's name inside the library folder.
    public var fileName: String
    /// When it was added.
    public var addedAt: Date
    /// The file's size in bytes, as it was when the track was added.
    public var fileSize: Int64 = 0
    /// Why the file was kept without tags, when it was.
    public var warning: String?
}

/// The library's index: which tracks are downloaded and where (SQLite via GRDB, in WAL mode, so
/// any number of readers — the server's handlers, another process — never wait for each other).
///
/// The files themselves are the truth: an item whose file is gone is not in the library. A
/// listing trusts the index while the folder is unchanged and reconciles the two when it has
/// changed (see ``reconcile()``); items asked for by id are checked on the disk when it has changed
/// (one always), without reading the whole folder.
///
/// Every change takes the next number of one counter (`seq`): the library lists most recent
/// first in that order, pages are cut at a `seq`, and removals leave a tombstone with theirs, so
/// a client can ask for only what changed since a listing.
final class LibraryStore: Sendable {
    let database: any DatabaseWriter
    /// Whether the store only reads (a home this process cannot write): rows whose files are gone
    /// are left out of what it answers, not removed.
    let readOnly: Bool
    let folder: URL
    /// The folder's path, for the stats and names of its files: a file's path is this, a slash
    /// and its name, with no URL made and read back per file.
    let folderPath: String
    /// SQL statements run so far (tests count the reads of one listing).
    let statements = StatementCounter()
    /// The index, closed once by ``close()`` and never touched after.
    private let door: DatabaseDoor
    /// The folder's stamp when the index was last reconciled with it.
    let reconciledStamp = Mutex<FolderStamp?>(nil)
    /// Pages read since the last change. This process is the library's only writer while it owns
    /// the session (another process's commands go through it), so its own writes are all changes.
    let pages = PageCache()

    /// A row of the index. The track is kept whole as JSON and, since v2, field by field too, so
    /// a listing of thousands reads columns instead of decoding JSON.
    struct Row: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "libraryTrack"
        var id: Int
        var trackJSON: String
        var fileName: String
        var addedAt: Date
        var seq: Int64
        var fileSize: Int64?
        var name: String?
        var artist: String?
        var album: String?
        var artworkURL: String?
        var durationMs: Int?
        var previewURL: String?
        var genre: String?
        var releaseDate: Date?
        var explicitness: String?
        var storeURL: String?
        var trackNumber: Int?
        var trackCount: Int?
        var warning: String?

        init(
            track: Track, trackJSON: String, fileName: String, addedAt: Date, seq: Int64, fileSize: Int64?,
            warning: String? = nil
        ) {
            (id, self.trackJSON, self.fileName, self.addedAt, self.seq, self.fileSize) = (
                track.id, trackJSON, fileName, addedAt, seq, fileSize
            )
            (name, artist, album, durationMs, genre, releaseDate) = (
                track.name, track.artist, track.album, track.durationMs, track.genre, track.releaseDate
            )
            (artworkURL, previewURL, explicitness) = (
                track.artworkURL?.absoluteString, track.previewURL?.absoluteString, track.explicitness?.rawValue
            )
            (storeURL, trackNumber, trackCount, self.warning) = (
                track.storeURL?.absoluteString, track.trackNumber, track.trackCount, warning
            )
        }

        /// The track: from its columns, or from its JSON for a row written before them.
        var track: Track? {
            guard let name, let artist else {
                return try? JSONDecoder().decode(Track.self, from: Data(trackJSON.utf8))
            }
            return Track(
                id: id, name: name, artist: artist, album: album, artworkURL: artworkURL.flatMap(URL.init(string:)),
                durationMs: durationMs, previewURL: previewURL.flatMap(URL.init(string:)), genre: genre,
                releaseDate: releaseDate, explicitness: explicitness.flatMap(Explicitness.init(rawValue:)),
                storeURL: storeURL.flatMap(URL.init(string:)), trackNumber: trackNumber, trackCount: trackCount)
        }
    }

    struct Removal: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "libraryRemoval"
        var id: Int
        var seq: Int64
    }

    /// Opens (creating and migrating as needed) the index at `path` of the library in `folder`;
    /// `readOnly`: as it is, writing nothing (no folder made, no migration), for a home this
    /// process cannot write — with no index there, an empty library.
    init(path: String, folder: URL, readOnly: Bool = false) throws {
        self.folder = folder
        let folderPath = folder.path
        self.folderPath = folderPath.count > 1 && folderPath.hasSuffix("/") ? String(folderPath.dropLast()) : folderPath
        self.readOnly = readOnly
        if readOnly, !FileManager.default.fileExists(atPath: path) {
            database = try DatabaseQueue()
            door = DatabaseDoor(database)
            try Self.migrator(folder: folder).migrate(database)
            return
        }
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(10)
        let counter = statements
        configuration.prepareDatabase { db in
            db.trace(options: .statement) { _ in counter.count.add(1, ordering: .relaxed) }
        }
        if readOnly {
            database = try DatabaseQueue(path: DatabaseOpening.readOnlyName(path: path), configuration: configuration)
            door = DatabaseDoor(database)
        } else {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            database = try DatabasePool(path: path, configuration: configuration)
            door = DatabaseDoor(database)
            try Self.migrator(folder: folder).migrate(database)
        }
    }

    /// Closes the index now, its write-ahead log folded into it, rather than when the last
    /// reference to it goes (a request still being answered as the process ends may hold one,
    /// and the process would end with the log beside the index). Later calls fail.
    public func close() { door.close() }

    /// The index, unless it is closed (SQLite must not be handed a closed connection).
    var openDatabase: any DatabaseWriter {
        get throws {
            guard let database = door.open else { throw DownloadError(.internalError, "the library's index is closed") }
            return database
        }
    }

    /// The item for a track, if its file is present, with the file's size as it is now. A row
    /// whose file is gone is removed.
    func item(id: Int) throws -> LibraryItem? {
        guard var item = try openDatabase.read({ db in try Row.fetchOne(db, key: id) }).flatMap(Self.item) else { return nil }
        guard let size = FolderStamp.size(atPath: path(of: item.fileName)) else {
            try forget([id])
            return nil
        }
        item.fileSize = size
        return item
    }

    /// A library item's status: downloaded, its file and size.
    func status(of item: LibraryItem) -> DownloadStatus {
        DownloadStatus(
            track: item.track, state: .downloaded, receivedBytes: item.fileSize, expectedBytes: item.fileSize, failure: nil,
            file: url(of: item), warning: item.warning)
    }

    /// The items of some tracks whose files are present, in one read (a search's results, a batch
    /// of downloads). While the folder is as it was when the index was last reconciled with it,
    /// the index is trusted; else each item found is checked on the disk, and a row whose file is
    /// gone is removed. Either way the cost follows the tracks asked for, not the library's size:
    /// a batch of downloads asks once a slice while its files arrive, and a read of the whole
    /// folder and index each time took a few percent of a 1,000-file batch, more as the library grows.
    func items(ids: [Int]) throws -> [Int: LibraryItem] {
        guard !ids.isEmpty else { return [:] }
        // Taken before the read: a change meanwhile is seen as a change.
        let stamp = FolderStamp(folder)
        // The ids go in as one JSON array, not one bound `?` each (a batch asks for thousands).
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        let rows = try openDatabase.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: "SELECT * FROM \(Row.databaseTableName) WHERE id IN (SELECT value FROM json_each(?))"),
                arguments: [list])
        }
        // No folder (a library on a disk not mounted): the index as it is, as a listing does.
        let trusted = stamp == nil || reconciledStamp.withLock { $0 } == stamp
        var items: [Int: LibraryItem] = [:]
        var gone: [Int] = []
        for item in rows.compactMap(Self.item) where items[item.track.id] == nil {
            if !trusted && FolderStamp.size(atPath: path(of: item.fileName)) == nil {
                gone.append(item.track.id)
            } else {
                items[item.track.id] = item
            }
        }
        try forget(gone)
        return items
    }

    /// A track to add: its file's name in the folder, and why it has no tags when it has none.
    struct Addition: Sendable {
        var track: Track
        var fileName: String
        var warning: String?
        /// The track's JSON when the caller has it (a download's tag), so it is not encoded again.
        var trackJSON: String?
    }

    /// Adds (or replaces) a track, numbering the change.
    ///
    /// - Parameter trackJSON: The track's JSON when the caller has it (a download's tag), so it is
    ///   not encoded again.
    func add(
        _ track: Track, fileName: String, warning: String? = nil, addedAt: Date = Date(), trackJSON: String? = nil
    ) throws -> LibraryItem {
        try add([Addition(track: track, fileName: fileName, warning: warning, trackJSON: trackJSON)], addedAt: addedAt)[0]
    }

    /// Adds (or replaces) tracks in one commit, numbering each change in order: downloads that
    /// finish together cost one commit, not one each.
    func add(_ additions: [Addition], addedAt: Date = Date()) throws -> [LibraryItem] {
        guard !additions.isEmpty else { return [] }
        let rows = try additions.map { addition in
            let json = try addition.trackJSON ?? String(decoding: JSONEncoder().encode(addition.track), as: UTF8.self)
            let size = FolderStamp.size(atPath: path(of: addition.fileName))
            return Row(
                track: addition.track, trackJSON: json, fileName: addition.fileName, addedAt: addedAt, seq: 0,
                fileSize: size, warning: addition.warning)
        }
        try openDatabase.write { db in
            var seq = try Self.reserveSeqs(rows.count, db)
            for var row in rows {
                row.seq = seq
                seq += 1
                try Removal.deleteOne(db, key: row.id)
                try row.upsert(db)
            }
        }
        pages.invalidate()
        return zip(additions, rows).map { addition, row in
            LibraryItem(
                track: addition.track, fileName: addition.fileName, addedAt: addedAt, fileSize: row.fileSize ?? 0,
                warning: addition.warning)
        }
    }

    /// Removes a track, leaving a tombstone for clients that follow changes.
    func remove(id: Int) throws { try forget([id]) }

    /// The file of an item; always inside the library folder.
    func url(of item: LibraryItem) -> URL {
        URL(filePath: path(of: item.fileName), directoryHint: .notDirectory)
    }

    /// The path of a stored file name's file; always inside the library folder.
    func path(of fileName: String) -> String { folderPath + "/" + Self.entryName(fileName) }

    /// The name a stored file name has inside the folder: its last component, so no stored name
    /// can point outside. (Names HalfTunes writes have no slash, and skip the path parsing.)
    static func entryName(_ fileName: String) -> String {
        fileName.utf8.contains(UInt8(ascii: "/")) ? (fileName as NSString).lastPathComponent : fileName
    }

    // MARK: - Internals

    func forget(_ ids: [Int]) throws {
        guard !ids.isEmpty, !readOnly else { return }
        try openDatabase.write { db in
            for id in ids where try Row.deleteOne(db, key: id) {
                try Removal(id: id, seq: try Self.nextSeq(db)).save(db)
            }
        }
        pages.invalidate()
    }

    /// The next change number: the counter only goes up, whatever is removed.
    static func nextSeq(_ db: Database) throws -> Int64 { try reserveSeqs(1, db) }

    /// Takes `count` change numbers in one step (one statement for a batch of additions, not one
    /// each) and returns the first; they follow it in order.
    static func reserveSeqs(_ count: Int, _ db: Database) throws -> Int64 {
        let last = try Int64.fetchOne(
            db, sql: "UPDATE librarySummary SET lastSeq = lastSeq + ? RETURNING lastSeq", arguments: [count])
        return (last ?? 0) - Int64(count) + 1
    }

    static func item(_ row: Row) -> LibraryItem? {
        guard let track = row.track else { return nil }
        return LibraryItem(
            track: track, fileName: row.fileName, addedAt: row.addedAt, fileSize: row.fileSize ?? 0, warning: row.warning)
    }
}

/// Counts the SQL statements a store runs.
final class StatementCounter: Sendable {
    let count = Atomic<Int>(0)
    /// The count so far.
    var value: Int { count.load(ordering: .relaxed) }
}
