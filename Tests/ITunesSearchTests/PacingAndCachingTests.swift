import Foundation
import Hummingbird
import TestSupport
import Testing

@testable import ITunesSearch

@Suite("Call pacing (pure)")
struct CallPacerTests {
    @Test("calls within the limit go at once; the next waits for the oldest to leave the window")
    func slidingWindow() {
        var pacer = CallPacer(limit: 3, window: .seconds(60))
        #expect(pacer.reserve(at: .seconds(0)) == .seconds(0))
        #expect(pacer.reserve(at: .seconds(1)) == .seconds(1))
        #expect(pacer.reserve(at: .seconds(2)) == .seconds(2))
        #expect(pacer.wait(at: .seconds(3)) == .seconds(57))
        #expect(pacer.reserve(at: .seconds(3)) == .seconds(60))
        #expect(pacer.reserve(at: .seconds(3)) == .seconds(61))
        #expect(pacer.reserve(at: .seconds(200)) == .seconds(200))
    }

    @Test("after the server says too many, nothing goes before the block ends")
    func block() {
        var pacer = CallPacer(limit: 20)
        pacer.block(until: .seconds(100))
        #expect(pacer.wait(at: .seconds(10)) == .seconds(90))
        #expect(pacer.reserve(at: .seconds(10)) == .seconds(100))
        #expect(pacer.reserve(at: .seconds(150)) == .seconds(150))
    }
}

@Suite("Response cache (pure)")
struct ResponseCacheTests {
    @Test("entries expire after their lifetime")
    func expiry() {
        var cache = ResponseCache<Int>(capacity: 4, lifetime: .seconds(10))
        cache.insert(1, for: "a", at: .seconds(0))
        #expect(cache.value(for: "a", at: .seconds(9)) == 1)
        #expect(cache.value(for: "a", at: .seconds(10)) == nil)
    }

    @Test("the least recently used entry is evicted when full")
    func eviction() {
        var cache = ResponseCache<Int>(capacity: 2, lifetime: .seconds(100))
        cache.insert(1, for: "a", at: .zero)
        cache.insert(2, for: "b", at: .zero)
        _ = cache.value(for: "a", at: .zero)
        cache.insert(3, for: "c", at: .zero)
        #expect(cache.value(for: "a", at: .zero) == 1)
        #expect(cache.value(for: "b", at: .zero) == nil)
        #expect(cache.value(for: "c", at: .zero) == 3)
    }
}

/// The client against a real server that counts the calls it gets.
@Suite("Caching and pacing over the wire", .timeLimit(.minutes(1)))
struct CatalogPacingTests {
    private static let answer = #"{"resultCount":1,"results":[{"kind":"song","trackId":1,"trackName":"T"}]}"#

    private func withCountingServer(
        status: HTTPResponse.Status = .ok,
        gate: Gate? = nil,
        _ body: (URL, RequestLog<String>) async throws -> Void
    ) async throws {
        let calls = RequestLog<String>()
        let router = Router()
        router.get("/search") { request, _ -> Response in
            calls.append(request.uri.query ?? "")
            if let gate { await gate.wait() }
            return Response(status: status, body: .init(byteBuffer: ByteBuffer(string: Self.answer)))
        }
        try await withTestServer(router) { url in try await body(url, calls) }
    }

    @Test("a repeated search is answered from the cache until it expires")
    func cache() async throws {
        let clock = ManualClock()
        try await withCountingServer { url, calls in
            let catalog = try ITunesCatalog(
                configuration: CatalogConfiguration(baseURL: url, cacheLifetime: .seconds(300), callsPerMinute: nil),
                clock: clock, logger: quietLogger("t"))
            let first = try await catalog.search(SearchQuery(term: "love"))
            let second = try await catalog.search(SearchQuery(term: "love"))
            #expect(first == second)
            #expect(calls.count == 1)
            _ = try await catalog.search(SearchQuery(term: "other"))
            #expect(calls.count == 2)
            clock.advance(by: .seconds(301))
            _ = try await catalog.search(SearchQuery(term: "love"))
            #expect(calls.count == 3)
        }
    }

    @Test("identical searches in flight share one call")
    func coalescing() async throws {
        let gate = Gate()
        try await withCountingServer(gate: gate) { url, calls in
            let catalog = try ITunesCatalog(
                configuration: CatalogConfiguration(baseURL: url, callsPerMinute: nil), logger: quietLogger("t"))
            async let first = catalog.search(SearchQuery(term: "same"))
            while calls.count == 0 { try await Task.sleep(for: .milliseconds(5)) }
            async let second = catalog.search(SearchQuery(term: "same"))
            // The server answers only once the second call has joined the first.
            while await catalog.joinedCalls == 0 { try await Task.sleep(for: .milliseconds(5)) }
            gate.open()
            let results = try await [first, second]
            #expect(results[0] == results[1])
            #expect(calls.count == 1)
        }
    }

    @Test("past the calls-per-minute limit, a call waits for its turn on the clock")
    func pacingWaits() async throws {
        let clock = ManualClock()
        try await withCountingServer { url, calls in
            let catalog = try ITunesCatalog(
                configuration: CatalogConfiguration(baseURL: url, callsPerMinute: 2, longestPacingWait: .seconds(120)),
                clock: clock, logger: quietLogger("t"))
            _ = try await catalog.search(SearchQuery(term: "a"))
            _ = try await catalog.search(SearchQuery(term: "b"))
            async let third = catalog.search(SearchQuery(term: "c"))
            await clock.waitForSleepers(1)
            #expect(calls.count == 2)
            clock.advance(by: .seconds(60))
            _ = try await third
            #expect(calls.count == 3)
        }
    }

    @Test("however fast the user types, no more than the limit reach the API")
    func pacingRefuses() async throws {
        try await withCountingServer { url, calls in
            let catalog = try ITunesCatalog(
                configuration: CatalogConfiguration(baseURL: url, callsPerMinute: 20, longestPacingWait: .zero),
                logger: quietLogger("t"))
            var refused = 0
            for index in 0..<50 {
                do { _ = try await catalog.search(SearchQuery(term: "term \(index)")) } catch let error as CatalogError {
                    #expect(error.code == .rateLimited)
                    refused += 1
                }
            }
            #expect(calls.count == 20)
            #expect(refused == 30)
        }
    }

    @Test("after a 403 the client holds back instead of hammering the API")
    func backsOffAfterForbidden() async throws {
        try await withCountingServer(status: .forbidden) { url, calls in
            let catalog = try ITunesCatalog(
                configuration: CatalogConfiguration(baseURL: url, callsPerMinute: 20, longestPacingWait: .seconds(5)),
                logger: quietLogger("t"))
            for term in ["a", "b", "c"] {
                await #expect { try await catalog.search(SearchQuery(term: term)) } throws: {
                    ($0 as? CatalogError)?.code == .rateLimited
                }
            }
            #expect(calls.count == 1)
        }
    }
}
