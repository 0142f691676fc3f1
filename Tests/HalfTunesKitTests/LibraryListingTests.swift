import Foundation
import GRDB
import ITunesSearch
import Logging
import TestSupport
import Testing

@testable import HalfTunesKit

@Suite("Library index: listing in one read, pages, changes")
struct LibraryListingTests {
    /// A store in `folder` holding tracks `ids` (each file `id` bytes long), added a minute apart.
    private func store(in folder: URL, ids: [Int]) throws -> LibraryStore {
        let store = try LibraryStore(
            path: folder.appendingPathComponent("library.sqlite").path, folder: folder.appendingPathComponent("library"))
        for id in ids { try add(id, to: store) }
        return store
    }

    private func add(_ id: Int, to store: LibraryStore) throws {
        let name = "track \(id).wav"
        try Data(repeating: 1, count: id).write(to: store.folder.appendingPathComponent(name))
        _ = try store.add(
            Track(id: id, name: "Song \(id)", artist: "A"), fileName: name,
            addedAt: Date(timeIntervalSince1970: 1e6 + Double(id) * 60))
    }

    @Test("a listing runs the same few statements for 3 tracks and for 300: no read per item")
    func noNPlusOne() async throws {
        var counts: [Int] = []
        for size in [3, 300] {
            try await withTemporaryDirectory { folder in
                let home = HalfTunesHome(root: folder)
                _ = try store(in: folder, ids: Array(1...size))
                let service = try await DownloadService.open(
                    home: home, configuration: .init(startsTransfers: false), logger: Logger(label: "t"))
                let before = service.library.statements.value
                let listing = try service.libraryListing(.all)
                counts.append(service.library.statements.value - before)
                #expect(listing.library.count == size && listing.libraryCount == size)
                #expect(listing.libraryBytes == Int64(size * (size + 1) / 2))
                await service.close()
            }
        }
        #expect(counts[0] == counts[1], "statements for one listing of 3 and of 300 tracks: \(counts)")
        // Two reads (the folder check's and the page's), each with its transaction statements.
        #expect(counts[1] <= 16, "statements for one listing: \(counts[1])")
    }

    @Test("pages of the library, most recent first, end with no next cursor")
    func pages() async throws {
        try await withTemporaryDirectory { folder in
            let store = try store(in: folder, ids: [1, 2, 3, 4, 5])
            var pages: [[Int]] = []
            var after: Int64?
            repeat {
                let page = try store.page(limit: 2, after: after)
                pages.append(page.items.map(\.track.id))
                #expect(page.count == 5 && page.bytes == 15)
                after = page.next
            } while after != nil
            #expect(pages == [[5, 4], [3, 2], [1]])
        }
    }

    @Test("since a cursor: only what was added, and the ids removed, including a file deleted behind the app's back")
    func changesSince() async throws {
        try await withTemporaryDirectory { folder in
            let store = try store(in: folder, ids: [1, 2, 3])
            let cursor = try store.page(limit: 10).cursor
            #expect(try store.page(since: cursor).items.isEmpty && store.page(since: cursor).removed == [])
            try add(6, to: store)
            try store.remove(id: 2)
            try FileManager.default.removeItem(at: store.folder.appendingPathComponent("track 3.wav"))
            let changes = try store.page(since: cursor)
            #expect(changes.items.map(\.track.id) == [6])
            #expect(changes.removed == [2, 3])
            #expect(changes.count == 2 && changes.bytes == 7)
            #expect(changes.cursor > cursor)
            #expect(try store.page().items.map(\.track.id) == [6, 1])
        }
    }

    @Test("some tracks' items (a search's, a batch's) read their own rows, not the whole index, while files arrive")
    func itemsByIDReadTheirOwn() async throws {
        try await withTemporaryDirectory { folder in
            let store = try store(in: folder, ids: Array(1...50))
            _ = try store.items()  // reconciled: the folder and the index agree
            var before = store.statements.value
            #expect(try store.items(ids: [2, 4, 99]).keys.sorted() == [2, 4])
            let trusting = store.statements.value - before
            try add(51, to: store)  // a download's file arrives: the folder has changed
            before = store.statements.value
            #expect(try store.items(ids: [2, 4, 99]).keys.sorted() == [2, 4])
            // The same statements as when the index is trusted: no read of every row.
            #expect(store.statements.value - before == trusting)
        }
    }

    @Test("some tracks' items leave out a file deleted behind the app's back, and drop its row")
    func itemsByIDDropGoneFiles() async throws {
        try await withTemporaryDirectory { folder in
            let store = try store(in: folder, ids: [1, 2, 3, 4])
            _ = try store.items()
            try FileManager.default.removeItem(at: store.folder.appendingPathComponent("track 3.wav"))
            #expect(try store.items(ids: [2, 3, 4]).keys.sorted() == [2, 4])
            let rows = try store.database.read { db in try Int.fetchAll(db, sql: "SELECT id FROM libraryTrack ORDER BY id") }
            #expect(rows == [1, 2, 4])
            // Unchanged since, the index is trusted again: the same answer.
            #expect(try store.items(ids: [1, 2, 3, 4]).keys.sorted() == [1, 2, 4])
        }
    }

    @Test("removing the most recent track moves the cursor on, and since reports it")
    func removeLatest() async throws {
        try await withTemporaryDirectory { folder in
            let store = try store(in: folder, ids: [1, 2])
            let cursor = try store.page().cursor
            try store.remove(id: 2)
            let changes = try store.page(since: cursor)
            #expect(changes.removed == [2] && changes.cursor > cursor)
            try add(3, to: store)
            #expect(try store.page(since: changes.cursor).items.map(\.track.id) == [3])
        }
    }

    @Test("tracks added back, alone or in a batch, are no longer reported removed; the other removals stay")
    func addedBackIsNoLongerRemoved() async throws {
        try await withTemporaryDirectory { folder in
            let store = try store(in: folder, ids: [1, 2, 3, 4])
            let cursor = try store.page().cursor
            for id in [1, 2, 3] { try store.remove(id: id) }
            try add(1, to: store)
            // 2 comes back in one batch with a new track, 5; 3 stays removed.
            let batch = [2, 5]
            for id in batch {
                try Data(repeating: 1, count: id).write(to: store.folder.appendingPathComponent("track \(id).wav"))
            }
            _ = try store.add(
                batch.map { id in
                    LibraryStore.Addition(track: Track(id: id, name: "Song \(id)", artist: "A"), fileName: "track \(id).wav")
                })
            let changes = try store.page(since: cursor)
            #expect(changes.removed == [3])
            #expect(Set(changes.items.map(\.track.id)) == [1, 2, 5])
        }
    }

    @Test("tracks added together go in with one transaction, numbered in the order given")
    func addsTogether() async throws {
        try await withTemporaryDirectory { folder in
            let together = try store(in: folder.appendingPathComponent("together"), ids: [])
            let oneByOne = try store(in: folder.appendingPathComponent("one by one"), ids: [])
            let additions = [7, 3, 5].map { id in
                LibraryStore.Addition(track: Track(id: id, name: "Song \(id)", artist: "A"), fileName: "track \(id).wav")
            }
            for store in [together, oneByOne] {
                try FileManager.default.createDirectory(at: store.folder, withIntermediateDirectories: true)
                for addition in additions {
                    try Data(repeating: 1, count: addition.track.id).write(
                        to: store.folder.appendingPathComponent(addition.fileName))
                }
            }
            let before = (together.statements.value, oneByOne.statements.value)
            let items = try together.add(additions)
            for addition in additions { _ = try oneByOne.add([addition]) }
            let (batched, single) = (together.statements.value - before.0, oneByOne.statements.value - before.1)
            // One BEGIN, one COMMIT and one numbering step instead of three of each.
            #expect(single - batched == 6, "statements: \(batched) together, \(single) one by one")
            #expect(items.map(\.fileSize) == [7, 3, 5])
            for store in [together, oneByOne] {
                let page = try store.page()
                #expect(page.items.map(\.track.id) == [5, 3, 7], "most recent (last given) first")
                #expect(page.count == 3 && page.bytes == 15)
                #expect(page.cursor == 3, "three changes numbered 1, 2, 3")
                #expect(try store.page(since: 1).items.map(\.track.id).sorted() == [3, 5], "after the first change")
            }
        }
    }

    @Test("a library from before change numbers keeps its order and gains sizes")
    func migratesVersion1() async throws {
        try await withTemporaryDirectory { folder in
            let library = folder.appendingPathComponent("library")
            try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
            let path = folder.appendingPathComponent("library.sqlite").path
            let old = try DatabaseQueue(path: path)
            try old.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                        INSERT INTO grdb_migrations VALUES ('v1');
                        CREATE TABLE libraryTrack (id INTEGER PRIMARY KEY, trackJSON TEXT NOT NULL, fileName TEXT NOT NULL, addedAt DATETIME NOT NULL);
                        """)
                for (id, added) in [
                    (7, "2024-01-02 00:00:00.000"), (8, "2024-01-01 00:00:00.000"), (9, "2024-01-03 00:00:00.000"),
                ] {
                    try Data(repeating: 0, count: id * 10).write(to: library.appendingPathComponent("\(id).wav"))
                    try db.execute(
                        sql: "INSERT INTO libraryTrack VALUES (?, ?, ?, ?)",
                        arguments: [id, #"{"id":\#(id),"name":"S","artist":"A"}"#, "\(id).wav", added])
                }
            }
            try old.close()
            let page = try LibraryStore(path: path, folder: library).page()
            #expect(page.items.map(\.track.id) == [9, 7, 8])
            #expect(page.items.map(\.fileSize) == [90, 70, 80])
            #expect(page.count == 3 && page.bytes == 240)
        }
    }

    @Test(
        "a query out of range is bad input with a reason",
        arguments: [
            (["limit": "0"], "limit is a number from 1 to 1000"),
            (["limit": "ten"], "limit is a number from 1 to 1000"),
            (["after": "-1"], "after is a cursor from an earlier listing (a number), not \"-1\""),
            (["after": "1", "since": "2"], "ask for a page (after) or for changes (since), not both"),
        ])
    func badQueries(parameters: [String: String], message: String) {
        #expect(throws: DownloadError(.badInput, message)) { try ListingQuery { parameters[$0] } }
    }
}
