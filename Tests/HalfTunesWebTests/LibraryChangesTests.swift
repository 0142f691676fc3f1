import Foundation
import HalfTunesKit
import TestSupport
import Testing

@testable import HalfTunesWeb

/// The listing the API serves, followed by its changes (`since`): what was added after a cursor,
/// and the ids removed after it — exactly those — as the page relies on to stay in step.
@Suite("The API's library changes since a cursor", .timeLimit(.minutes(2)))
struct LibraryChangesTests {
    private func listing(_ url: URL, since cursor: String? = nil) async throws -> [String: Any] {
        let answer = try await request(url, "/api/downloads" + (cursor.map { "?since=\($0)" } ?? ""))
        #expect(answer.status == 200)
        return answer.json ?? [:]
    }

    private func libraryIDs(_ document: [String: Any]) -> [Int] {
        (document["library"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }.sorted()
    }

    /// Downloads `ids` through the API and waits (polling the listing) until all are in the library.
    private func download(_ ids: [Int], _ url: URL, _ web: WebApp) async throws {
        for id in ids {
            #expect(try await request(url, "/api/downloads/\(id)", method: .POST, headers: allowed(url, web)).status == 200)
        }
        for _ in 0..<400 {
            if Set(libraryIDs(try await listing(url))).isSuperset(of: ids) { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        Issue.record("\(ids) did not reach the library")
    }

    @Test("since a cursor: the tracks added after it, the ids removed after it and no others, and a new cursor")
    func changesSince() async throws {
        try await withWebApp { url, web, _, _ in
            try await download([1001, 1002, 1003], url, web)
            let start = try await listing(url)
            let cursor = try #require(start["cursor"] as? String)
            #expect(libraryIDs(start) == [1001, 1002, 1003])

            // Nothing happened: nothing added, nothing removed.
            let quiet = try await listing(url, since: cursor)
            #expect(libraryIDs(quiet).isEmpty)
            #expect(quiet["removed"] as? [Int] == [])

            #expect(try await request(url, "/api/library/1001", method: .DELETE, headers: allowed(url, web)).status < 300)
            let afterRemoval = try await listing(url, since: cursor)
            #expect(afterRemoval["removed"] as? [Int] == [1001], "\(afterRemoval)")
            #expect(libraryIDs(afterRemoval).isEmpty)
            let second = try #require(afterRemoval["cursor"] as? String)
            #expect(second != cursor)

            // A second removal and an addition: since the second cursor, only they.
            #expect(try await request(url, "/api/library/1002", method: .DELETE, headers: allowed(url, web)).status < 300)
            try await download([1004], url, web)
            let later = try await listing(url, since: second)
            #expect(later["removed"] as? [Int] == [1002], "\(later)")
            #expect(libraryIDs(later) == [1004], "\(later)")
            // Since the first cursor, both removals.
            #expect(Set(try await listing(url, since: cursor)["removed"] as? [Int] ?? []) == [1001, 1002])
            // A removed track added back is no longer reported removed.
            try await download([1001], url, web)
            let back = try await listing(url, since: cursor)
            #expect(back["removed"] as? [Int] == [1002], "\(back)")
            #expect(libraryIDs(back).contains(1001))
        }
    }
}
