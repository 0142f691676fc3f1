import Foundation
import Hummingbird
import Synchronization
import TestSupport
import Testing

@testable import ITunesSearch

/// The most of something seen at once.
final class Peak: Sendable {
    private let most = Mutex(0)
    func saw(_ count: Int) { most.withLock { $0 = max($0, count) } }
    var value: Int { most.withLock { $0 } }
}

/// A lookup of many ids over the wire: its calls (200 ids each) run side by side, and the tracks
/// come back in order, whatever order the answers arrive in.
@Suite("Batch lookups over the wire", .timeLimit(.minutes(1)))
struct BatchLookupTests {
    /// A lookup server: each id asked for is a song, unless the call's first id is in `failing`
    /// (then that status). Calls wait at `gate` until `together` of them have arrived.
    private func withLookupServer(
        together: Int = 1, failing: [Int: HTTPResponse.Status] = [:],
        _ body: (URL, RequestLog<[Int]>, Peak) async throws -> Void
    ) async throws {
        let calls = RequestLog<[Int]>()
        let mostAtOnce = Peak()
        let inFlight = Mutex(0)
        let gate = Gate()
        let router = Router()
        router.get("/lookup") { request, _ -> Response in
            let list = request.uri.queryParameters["id"].map(String.init) ?? ""
            let ids = list.split(separator: ",").compactMap { Int($0) }
            calls.append(ids)
            let now = inFlight.withLock { count in
                count += 1
                return count
            }
            mostAtOnce.saw(now)
            if calls.count >= together { gate.open() }
            await gate.wait()
            inFlight.withLock { $0 -= 1 }
            if let first = ids.first, let status = failing[first] {
                return Response(status: status, body: .init(byteBuffer: ByteBuffer(string: "{}")))
            }
            let results = ids.map { #"{"wrapperType":"track","kind":"song","trackId":\#($0),"trackName":"Song \#($0)"}"# }
            let json = #"{"resultCount":\#(ids.count),"results":[\#(results.joined(separator: ","))]}"#
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: json)))
        }
        try await withTestServer(router) { url in try await body(url, calls, mostAtOnce) }
    }

    private func catalog(_ url: URL) throws -> ITunesCatalog {
        try ITunesCatalog(configuration: CatalogConfiguration(baseURL: url, callsPerMinute: nil), logger: quietLogger("t"))
    }

    @Test("900 ids: five calls, four of them at once, the tracks in id order")
    func sideBySide() async throws {
        // No call is answered until four are waiting: calls made one after another would never be.
        try await withLookupServer(together: ITunesCatalog.parallelLookups) { url, calls, mostAtOnce in
            let ids = Array((1...900).reversed())
            let tracks = try await catalog(url).lookup(ids: ids)
            #expect(tracks.map(\.id) == Array(1...900))
            #expect(calls.count == 5)
            #expect(calls.all.map(\.count).sorted() == [100, 200, 200, 200, 200])
            #expect(mostAtOnce.value == ITunesCatalog.parallelLookups)
        }
    }

    @Test("when calls fail, the error is the first failing call's, and no track is returned")
    func firstError() async throws {
        try await withLookupServer(failing: [201: .internalServerError, 601: .badRequest]) { url, _, _ in
            do {
                let tracks = try await catalog(url).lookup(ids: Array(1...900))
                Issue.record("expected an error, got \(tracks.count) tracks")
            } catch let error as CatalogError {
                #expect(error.code == .serverError, "\(error)")
            }
        }
    }
}
