import DemoCatalog
import Foundation
import ITunesSearch
import TestSupport
import Testing
import TransferEngine

@testable import HalfTunesKit

/// A listing taken at any moment of a batch finds every started track in one of its lists: in
/// flight or in the library, never in neither (between a transfer's completion and its filing in
/// the library a listing once found it in neither, and a page reloaded then lost its row).
@Suite("Listings while a batch finishes", .timeLimit(.minutes(1)))
struct ListingConsistencyTests {
    @Test("every started track is in the downloads or the library in each of the listings taken until all are done")
    func neverInNeither() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let catalog = CatalogConfiguration(baseURL: url, callsPerMinute: nil)
                let control = LocalDownloadControl(
                    home: HalfTunesHome(root: folder), configuration: TransferSessionConfiguration(), tagging: .off,
                    catalog: { _ in try ITunesCatalog(configuration: catalog, logger: quietLogger("c")) },
                    logger: quietLogger("d"))
                try await control.closing { control in
                    let ids = [1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1011, 1012, 1013, 1014]
                    let started = Set(try await control.start(ids).map(\.id))
                    #expect(started == Set(ids))
                    var listings = 0
                    var missing: [Int: Int] = [:]
                    // Listings back to back until the batch is done (bounded: the suite's time limit is a minute).
                    let deadline = ContinuousClock.now + .seconds(40)
                    while ContinuousClock.now < deadline {
                        let listing = try await control.listing()
                        listings += 1
                        let seen = Set(listing.downloads.map(\.id)).union(listing.library.map(\.id))
                        for id in started.subtracting(seen) { missing[id, default: 0] += 1 }
                        if Set(listing.library.map(\.id)) == started { break }
                        // A breath between listings, so that they sample the batch rather than starve it.
                        try await Task.sleep(for: .milliseconds(1))
                    }
                    #expect(
                        missing.isEmpty, "tracks missing from both lists, by listing count: \(missing) of \(listings) listings")
                    #expect(Set(try await control.listing().library.map(\.id)) == started)
                }
            }
        }
    }
}
