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
    private func control(_ home: HalfTunesHome, catalog url: URL, starts: Bool = true) -> LocalDownloadControl {
        var configuration = TransferSessionConfiguration()
        configuration.startsTransfers = starts
        let catalog = CatalogConfiguration(baseURL: url, callsPerMinute: nil)
        return LocalDownloadControl(
            home: home, configuration: configuration, tagging: .off,
            catalog: { try ITunesCatalog(configuration: catalog, logger: quietLogger("c")) },
            logger: quietLogger("d"))
    }

    /// Waits, boundedly, until the catalog has answered `count` lookup calls.
    private func lookups(_ catalog: DemoCatalog, reach count: Int) async throws -> Bool {
        for _ in 0..<1000 where catalog.lookupRequests.count < count { try await Task.sleep(for: .milliseconds(10)) }
        return catalog.lookupRequests.count >= count
    }

    private func failure(of control: LocalDownloadControl, starting ids: [Int]) async -> DownloadError? {
        do {
            _ = try await control.start(ids)
            return nil
        } catch {
            return error
        }
    }

    private func completions(_ batches: AsyncStream<[DownloadEvent]>, of ids: Set<Int>) async -> Set<Int> {
        var done = Set<Int>()
        for await batch in batches {
            for case .completed(let id, _, _) in batch { done.insert(id) }
            if done == ids || batch.contains(where: { if case .failed = $0 { true } else { false } }) { break }
        }
        return done
    }

    @Test("the lookup goes out before the downloads open, and the first start asks nothing more")
    func aheadOfTheStart() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let home = HalfTunesHome(root: folder)
                let control = control(home, catalog: url)
                await control.prefetch([1012, 1011])
                // Nothing opened yet: the call comes from the prefetch alone.
                #expect(try await lookups(catalog, reach: 1))
                #expect(!FileManager.default.fileExists(atPath: home.libraryIndex.path))
                let events = try await control.eventBatches()
                let documents = try await control.start([1011, 1012])
                #expect(documents.map(\.id) == [1011, 1012])
                #expect(await completions(events, of: [1011, 1012]) == [1011, 1012])
                #expect(catalog.lookupRequests.map { $0.sorted() } == [[1011, 1012]], "one call, the prefetch's")
                #expect(filesIn(home.library).count == 2)
                await control.close()
            }
        }
    }

    @Test("tracks with a file in the library are not asked for: the same download again makes no call")
    func filesInTheLibrary() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let home = HalfTunesHome(root: folder)
                let first = control(home, catalog: url)
                let events = try await first.eventBatches()
                _ = try await first.start([1011, 1012])
                #expect(await completions(events, of: [1011, 1012]) == [1011, 1012])
                await first.close()
                #expect(catalog.lookupRequests.count == 1)

                let again = control(home, catalog: url)
                await again.prefetch([1011, 1012])
                let documents = try await again.start([1011, 1012])
                #expect(documents.map(\.state) == [.downloaded, .downloaded])
                #expect(catalog.lookupRequests.count == 1, "\(catalog.lookupRequests)")

                // One new id beside them: only it is asked for, once.
                await again.close()
                let more = control(home, catalog: url)
                await more.prefetch([1011, 1013])
                let mixed = try await more.start([1011, 1013])
                #expect(mixed.map(\.id) == [1011, 1013])
                #expect(catalog.lookupRequests.dropFirst() == [[1013]])
                await more.close()
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
                    let queueing = control(home, catalog: url, starts: false)
                    let queued = try await queueing.start([1011])
                    #expect(queued.map(\.state) == [.queued])
                    await queueing.close()

                    let offline = control(home, catalog: gone, starts: false)
                    await offline.prefetch([1011])
                    let offlineStart = try await offline.start([1011])
                    #expect(offlineStart.map(\.state) == [.queued])
                    await offline.close()

                    // A track nowhere on this machine: the lookup was needed.
                    var errors: [DownloadError] = []
                    for prefetching in [true, false] {
                        let fresh = control(
                            HalfTunesHome(root: folder.appendingPathComponent("fresh-\(prefetching)")), catalog: gone)
                        if prefetching { await fresh.prefetch([1011]) }
                        if let error = await failure(of: fresh, starting: [1011]) { errors.append(error) }
                        await fresh.close()
                    }
                    #expect(errors.count == 2)
                    #expect(errors.first?.code == errors.last?.code)
                    #expect(errors.first?.message == errors.last?.message)
                }
            }
        }
    }
}
