import DemoCatalog
import Foundation
import ITunesSearch
import TestSupport
import Testing
import TransferEngine

@testable import HalfTunesKit

/// A lookup begun before the start that needs it (what an agent started by `download` does while
/// it opens the home): the start takes its answer instead of asking the catalog again.
@Suite("Looking a batch up ahead", .timeLimit(.minutes(1)))
struct LookAheadTests {
    /// Runs `body` with a control over an open service in `folder`, whose catalog is at `url`,
    /// given `lookAhead`.
    private func withControl(
        catalog url: URL, lookAhead: (ITunesCatalog) -> LookAhead?,
        _ body: (LocalDownloadControl, LookAhead?) async throws -> Void
    ) async throws {
        try await withTemporaryDirectory { folder in
            let catalog = try ITunesCatalog(
                configuration: CatalogConfiguration(baseURL: url, callsPerMinute: nil), logger: quietLogger("c"))
            let ahead = lookAhead(catalog)
            let service = try await DownloadService.open(
                home: HalfTunesHome(root: folder), tagging: .off, logger: quietLogger("d"))
            let control = LocalDownloadControl(
                service: service, catalog: { _ in catalog }, lookAhead: ahead, logger: quietLogger("l"))
            do { try await body(control, ahead) } catch {
                await service.close()
                throw error
            }
            await service.close()
        }
    }

    // The catalog client answers a call it has just made, or is making, from its own cache: the
    // starts below ask for other sets of ids than the look-ahead did, which only its answer has.
    @Test("the look-ahead asks before any start does, and a start of some of its ids makes no lookup of its own")
    func startTakesTheAnswer() async throws {
        try await withDemoCatalog { catalog, url in
            try await withControl(catalog: url, lookAhead: { LookAhead(ids: [1001, 1002, 1003], catalog: $0) }) {
                control, _ in
                #expect(await eventually(within: .seconds(10)) { catalog.lookupRequests.count == 1 }, "the look-ahead asked")
                let started = try await control.start([1002, 1001])
                #expect(started.map(\.id) == [1002, 1001])
                #expect(started.map(\.name) == ["Paper Boats", "Love in the Harbour"])
                #expect(catalog.lookupRequests == [[1001, 1002, 1003]], "one lookup in all")
            }
        }
    }

    @Test("ids the look-ahead did not ask for are looked up by the start; those it asked for are not asked again")
    func restLookedUp() async throws {
        try await withDemoCatalog { catalog, url in
            try await withControl(catalog: url, lookAhead: { LookAhead(ids: [1001], catalog: $0) }) { control, _ in
                let started = try await control.start([1001, 1002])
                #expect(Set(started.map(\.id)) == [1001, 1002])
                #expect(catalog.lookupRequests == [[1001], [1002]])
            }
        }
    }

    @Test("an id the look-ahead's answer lacks is not in the catalog: the start says so without asking again")
    func answerLacksAnID() async throws {
        try await withDemoCatalog { catalog, url in
            try await withControl(catalog: url, lookAhead: { LookAhead(ids: [1001, 987_654], catalog: $0) }) { control, _ in
                let error = await #expect(throws: DownloadError.self) { try await control.start([987_654]) }
                #expect(error?.code == .notFound)
                #expect(error?.trackIDs == [987_654])
                #expect(catalog.lookupRequests == [[1001, 987_654]])
            }
        }
    }

    @Test("a look-ahead that failed is the start's answer: its error, and no second try at the catalog")
    func failedLookAhead() async throws {
        try await withDemoCatalog { catalog, url in
            try await withRefusingPort { refusing in
                let elsewhere = try ITunesCatalog(
                    configuration: CatalogConfiguration(baseURL: refusing, callsPerMinute: nil), logger: quietLogger("c"))
                let failing = LookAhead(ids: [1001], catalog: elsewhere)
                try await withControl(catalog: url, lookAhead: { _ in failing }) { control, _ in
                    let error = await #expect(throws: DownloadError.self) { try await control.start([1001]) }
                    #expect(error?.code == .upstreamFailure, "\(String(describing: error))")
                    #expect(catalog.lookupRequests.isEmpty, "asked again: \(catalog.lookupRequests)")
                    // Taken once: the next start asks the catalog itself.
                    let again = try await control.start([1001])
                    #expect(again.map(\.id) == [1001])
                    #expect(catalog.lookupRequests == [[1001]])
                }
            }
        }
    }
}
