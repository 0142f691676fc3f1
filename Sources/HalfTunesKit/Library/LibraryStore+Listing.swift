import Foundation
import GRDB
import ITunesSearch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One page of the library, or the changes since a cursor, with the library's totals: all of it
/// from one read of the index.
struct LibraryPage: Sendable {
    /// The items, most recent first.
    var items: [LibraryItem]
    /// How many tracks the whole library holds, and their bytes.
    var count: Int
    var bytes: Int64
    /// Where the next page starts (`after`), when there is one.
    var next: Int64?
    /// The change number this page reflects (`since`).
    var cursor: Int64
    /// Tracks removed since `since` (a changes-only page).
    var removed: [Int]?
    /// The items as wire documents, made once per page read (a cached page is sent many times).
    var documents: [DownloadDocument] = []
}

/// What a folder looks like from outside: when it last changed. Adding, removing or renaming an
/// entry changes it, so an unchanged stamp means the index still matches the folder.
struct FolderStamp: Sendable, Hashable {
    let seconds: Int
    let nanoseconds: Int
    let inode: UInt64

    init?(_ folder: URL) {
        var info = stat()
        guard stat(folder.path, &info) == 0 else { return nil }
        seconds = Int(info.st_mtim.tv_sec)
        nanoseconds = Int(info.st_mtim.tv_nsec)
        inode = UInt64(info.st_ino)
    }

    /// A file's size, or `nil` when it is not there.
    static func size(of file: URL) -> Int64? { size(atPath: file.path) }

    /// The size of the file at `path`, or `nil` when it is not there.
    static func size(atPath path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }
}

/// A page's place in the library.
struct PageKey: Hashable, Sendable {
    var limit: Int?
    var after: Int64?
}

/// The pages read since the library last changed, a few dozen at most.
final class PageCache: Sendable {
    private let state = Mutex<(generation: Int, pages: [PageKey: LibraryPage])>((0, [:]))

    /// The library's change count, as this process knows it.
    func generation() -> Int { state.withLock { $0.generation } }

    func page(_ key: PageKey, generation: Int) -> LibraryPage? {
        state.withLock { $0.generation == generation ? $0.pages[key] : nil }
    }

    /// Keeps a page read at `generation`, unless the library changed meanwhile.
    func keep(_ page: LibraryPage, for key: PageKey, generation: Int) {
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.pages.count >= 64 { state.pages = [:] }
            state.pages[key] = page
        }
    }

    /// Forgets every page: the library changed.
    func invalidate() {
        state.withLock { state in
            state.generation += 1
            state.pages = [:]
        }
    }
}

extension LibraryStore {
    /// The library, most recent first: a page of `limit` items starting after change number
    /// `after`, or every change since `since` (then with the ids removed since).
    ///
    /// A constant number of statements whatever the library's size: the totals come from a row
    /// the index's triggers keep, the page from the `seq` index.
    func page(limit: Int? = nil, after: Int64? = nil, since: Int64? = nil) throws -> LibraryPage {
        try reconcile()
        guard since == nil else { return try readPage(limit: limit, after: after, since: since) }
        // Pages are kept until the library changes: a library nobody changes is read once.
        let key = PageKey(limit: limit, after: after)
        let generation = pages.generation()
        if let page = pages.page(key, generation: generation) { return page }
        let page = try readPage(limit: limit, after: after, since: nil)
        pages.keep(page, for: key, generation: generation)
        return page
    }

    private func readPage(limit: Int?, after: Int64?, since: Int64?) throws -> LibraryPage {
        try openDatabase.read { db in
            let totals = try Totals.fetchOne(
                db,
                sql: "SELECT trackCount, totalBytes, lastSeq FROM librarySummary")
            var page = LibraryPage(
                items: [], count: totals?.trackCount ?? 0, bytes: totals?.totalBytes ?? 0, next: nil, cursor: totals?.lastSeq ?? 0
            )
            var request = Row.order(Column("seq").desc)
            if let since {
                request = request.filter(Column("seq") > since)
                page.removed = try Int.fetchAll(
                    db, sql: "SELECT id FROM libraryRemoval WHERE seq > ? ORDER BY seq", arguments: [since])
            } else if let after {
                request = request.filter(Column("seq") < after)
            }
            if let limit, since == nil { request = request.limit(limit + 1) }
            var rows = try request.fetchAll(db)
            if let limit, since == nil, rows.count > limit {
                rows.removeLast(rows.count - limit)
                page.next = rows.last?.seq
            }
            page.items = rows.compactMap(Self.item)
            let folderPath = folder.path + "/"
            page.documents = page.items.map { item in
                var document = DownloadDocument(item.track, status: nil)
                document.state = .downloaded
                (document.receivedBytes, document.expectedBytes) = (item.fileSize, item.fileSize)
                document.file = folderPath + Self.entryName(item.fileName)
                document.warning = item.warning
                return document
            }
            return page
        }
    }

    /// A page of the library, or what changed in it since a cursor, with its totals, as a
    /// listing with no downloads: one read of the index.
    func listing(_ query: ListingQuery) throws -> Listing {
        let (limit, after, since) = try query.checked()
        let page = try page(limit: limit, after: after, since: since)
        return Listing(
            downloads: [], library: page.documents, libraryCount: page.count, libraryBytes: page.bytes,
            next: page.next.map(String.init), cursor: String(page.cursor), removed: page.removed)
    }

    /// Every item whose file is present, most recent first.
    func items() throws -> [LibraryItem] { try page().items }

    /// Drops the rows whose files are gone, when the folder has changed since the last time:
    /// one `stat` when nothing changed, else one directory read and one query.
    ///
    /// The stamp is taken before the folder is read, so a change during the check is seen next
    /// time. (File times are coarse: two changes within one clock tick may look like one; a file
    /// missed that way is caught when it is asked for.)
    func reconcile() throws {
        guard let stamp = FolderStamp(folder) else { return }
        if reconciledStamp.withLock({ $0 }) == stamp { return }
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        let indexed = try openDatabase.read { db in
            try NameRow.fetchAll(db, sql: "SELECT id, fileName FROM libraryTrack")
        }
        try forget(indexed.filter { !present.contains(Self.entryName($0.fileName)) }.map(\.id))
        reconciledStamp.withLock { $0 = stamp }
    }

    struct Totals: Decodable, FetchableRecord {
        var trackCount: Int
        var totalBytes: Int64
        var lastSeq: Int64
    }

    struct NameRow: Decodable, FetchableRecord {
        var id: Int
        var fileName: String
    }
}
