import DemoCatalog
import Foundation
import ITunesSearch
import TestSupport
import Testing
import TransferEngine

@testable import HalfTunesKit

/// A local control's tracks looked up while its downloads open (`prefetch`), on a real
/// DemoCatalog, whose own log of lookup calls is what the tests read.
@Suite("Tracks looked up while the downloads open", .timeLimit(.minutes(1)))
struct PrefetchTests {
    /// Runs `body` with a local control on `home`, closed afterwards however `body` ends.
    private func withControl<T>(
        _ home: HalfTunesHome, catalog url: URL, starts: Bool = true, _ body: (LocalDownloadControl) async throws -> T
    ) async throws -> T {
        var configuration = TransferSessionConfiguration()
        configuration.startsTransfers = starts
        // As the command line's: no answers kept, so every lookup asked for reaches the catalog.
        let catalog = CatalogConfiguration(baseURL: url, cacheCapacity: 0, callsPerMinute: nil)
        let control = LocalDownloadControl(
            home: home, configuration: configuration, tagging: .off,
            catalog: { try ITunesCatalog(configuration: catalog, logger: quietLogger("c")) },
            logger: quietLogger("d"))
        return try await control.closing(after: body)
    }

    /// What a start gives: its documents, or its error.
    private func starting(_ ids: [Int], on control: LocalDownloadControl) async -> Result<[DownloadDocument], DownloadError> {
        do {
            return .success(try await control.start(ids))
        } catch {
            return .failure(error)
        }
    }

    /// Waits, boundedly, until the catalog has answered `count` lookup calls.
    private func lookups(_ catalog: DemoCatalog, reach count: Int) async throws -> Bool {
        for _ in 0..<1000 where catalog.lookupRequests.count < count { try await Task.sleep(for: .milliseconds(10)) }
        return catalog.lookupRequests.count >= count
    }

    @Test("the lookup goes out before the downloads open, and the first start asks nothing more")
    func aheadOfTheStart() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let home = HalfTunesHome(root: folder)
                try await withControl(home, catalog: url) { control in
                    await control.prefetch([1012, 1011])
                    // Nothing opened yet: the call comes from the prefetch alone.
                    #expect(try await lookups(catalog, reach: 1))
                    #expect(!FileManager.default.fileExists(atPath: home.libraryIndex.path))
                    let events = try await control.events()
                    let documents = try await control.start([1011, 1012])
                    #expect(documents.map(\.id) == [1011, 1012])
                    #expect(Set(await waitForCompletion(events, of: [1011, 1012]).keys) == [1011, 1012])
                }
                #expect(catalog.lookupRequests.map { $0.sorted() } == [[1011, 1012]], "one call, the prefetch's")
                #expect(filesIn(home.library).count == 2)
            }
        }
    }

    @Test("tracks with a file in the library are not asked for: the same download again makes no call")
    func filesInTheLibrary() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let home = HalfTunesHome(root: folder)
                try await withControl(home, catalog: url) { first in
                    let events = try await first.events()
                    _ = try await first.start([1011, 1012])
                    #expect(Set(await waitForCompletion(events, of: [1011, 1012]).keys) == [1011, 1012])
                }
                #expect(catalog.lookupRequests.count == 1)

                let again = try await withControl(home, catalog: url) { again in
                    await again.prefetch([1011, 1012])
                    return try await again.start([1011, 1012])
                }
                #expect(again.map(\.state) == [.downloaded, .downloaded])
                #expect(catalog.lookupRequests.count == 1, "\(catalog.lookupRequests)")

                // One new id beside them: only it is asked for, once.
                let mixed = try await withControl(home, catalog: url) { more in
                    await more.prefetch([1011, 1013])
                    return try await more.start([1011, 1013])
                }
                #expect(mixed.map(\.id) == [1011, 1013])
                #expect(catalog.lookupRequests.dropFirst() == [[1013]])
            }
        }
    }

    @Test("a prefetch that fails fails only a start that needed its answer, with the error a start alone gives")
    func failedLookup() async throws {
        // `gone`: a catalog whose port refuses connections.
        try await withRefusingPort { gone in
            try await withDemoCatalog { _, url in
                try await withTemporaryDirectory { folder in
                    // Queued (not started, so no file yet) while the catalog answered.
                    let home = HalfTunesHome(root: folder.appendingPathComponent("queued"))
                    let queued = try await withControl(home, catalog: url, starts: false) { try await $0.start([1011]) }
                    #expect(queued.map(\.state) == [.queued])

                    let offline = try await withControl(home, catalog: gone, starts: false) { offline in
                        await offline.prefetch([1011])
                        return await starting([1011], on: offline)
                    }
                    #expect((try? offline.get())?.map(\.state) == [.queued], "\(offline)")

                    // A track nowhere on this machine: the lookup was needed.
                    var errors: [DownloadError] = []
                    for prefetching in [true, false] {
                        let fresh = HalfTunesHome(root: folder.appendingPathComponent("fresh-\(prefetching)"))
                        let result = try await withControl(fresh, catalog: gone) { control in
                            if prefetching { await control.prefetch([1011]) }
                            return await starting([1011], on: control)
                        }
                        if case .failure(let error) = result { errors.append(error) }
                    }
                    #expect(errors.count == 2)
                    #expect(errors.first?.code == errors.last?.code)
                    #expect(errors.first?.message == errors.last?.message)
                }
            }
        }
    }
}
