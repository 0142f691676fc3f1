import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import TestSupport
import Testing

@testable import ITunesSearch

/// Every error the client reports, produced by a real local server answering that way.
@Suite("Catalog errors", .timeLimit(.minutes(1)))
struct CatalogErrorTests {
    private func searchError(
        timeout: Duration = .seconds(10),
        release: Gate = Gate(),
        _ handler: @escaping @Sendable (Request) async throws -> Response
    ) async throws -> CatalogError {
        let error = try await searchResult(timeout: timeout, release: release, handler)
        return try #require(error, "expected the search to fail")
    }

    private func searchResult(
        timeout: Duration,
        release: Gate,
        _ handler: @escaping @Sendable (Request) async throws -> Response
    ) async throws -> CatalogError? {
        let router = Router()
        router.get("/search") { request, _ in try await handler(request) }
        return try await withTestServer(router) { url -> CatalogError? in
            let catalog = try ITunesCatalog(
                configuration: CatalogConfiguration(baseURL: url, timeout: timeout, callsPerMinute: nil),
                logger: quietLogger("t"))
            let query = try SearchQuery(term: "anything")
            // Whatever happens, let a handler that holds its answer go, so the server can stop.
            defer { release.open() }
            do {
                _ = try await catalog.search(query)
                return nil
            } catch {
                return try #require(error as? CatalogError)
            }
        }
    }

    private static func body(_ text: String) -> ResponseBody { .init(byteBuffer: ByteBuffer(string: text)) }

    @Test("403 with an empty body is rate limiting; the user is told to wait")
    func forbidden() async throws {
        let error = try await searchError { _ in Response(status: .forbidden) }
        #expect(error.code == .rateLimited)
        #expect(error.message.contains("HTTP 403"))
        #expect(error.message.contains("wait a minute"))
    }

    @Test("429 with Retry-After is rate limiting with the server's wait")
    func tooManyRequests() async throws {
        let error = try await searchError { _ in Response(status: .tooManyRequests, headers: [.retryAfter: "30"]) }
        #expect(error.code == .rateLimited)
        #expect(error.message.contains("retry in 30 s"))
    }

    @Test("400 carries the API's errorMessage")
    func badRequest() async throws {
        let error = try await searchError { _ in
            Response(status: .badRequest, body: Self.body(#"{"errorMessage":"Invalid value(s) for key(s): [country]"}"#))
        }
        #expect(error.code == .badRequest)
        #expect(error.message == "the catalog rejected the request: Invalid value(s) for key(s): [country]")
    }

    @Test("a 4xx without the API's errorMessage names the status and the address asked")
    func notFound() async throws {
        let error = try await searchError { _ in Response(status: .notFound, body: Self.body("<html>Not Found</html>")) }
        #expect(error.code == .badRequest)
        #expect(error.message.hasPrefix("the catalog rejected the request: HTTP 404 for http://127.0.0.1:"), "\(error.message)")
        #expect(error.message.hasSuffix("(is the catalog URL right?)"), "\(error.message)")
        #expect(error.message.contains("/search?"), "\(error.message)")
    }

    @Test("5xx is a server error naming the status", arguments: [500, 502, 503])
    func serverError(status: Int) async throws {
        let error = try await searchError { _ in Response(status: .init(code: status)) }
        #expect(error.code == .serverError)
        #expect(error.message.contains("HTTP \(status)"))
    }

    @Test("a 200 that is not JSON is a malformed response saying why")
    func malformed() async throws {
        let error = try await searchError { _ in Response(status: .ok, body: Self.body("<html>Service Unavailable</html>")) }
        #expect(error.code == .malformedResponse)
        #expect(error.message.contains("not valid JSON"))
    }

    @Test("a server that never answers times out")
    func timeout() async throws {
        let release = Gate()
        let error = try await searchError(timeout: .milliseconds(300), release: release) { _ in
            // Hold the answer until the client has given up.
            await release.wait()
            return Response(status: .ok)
        }
        #expect(error.code == .timeout)
        #expect(error.message.contains("did not answer within"))
    }

    @Test("a host that refuses connections is unreachable, and the message names it")
    func unreachable() async throws {
        try await withRefusingPort { url in
            let catalog = try ITunesCatalog(
                configuration: CatalogConfiguration(baseURL: url, callsPerMinute: nil), logger: quietLogger("t"))
            await #expect {
                try await catalog.search(SearchQuery(term: "x"))
            } throws: { error in
                guard let error = error as? CatalogError else { return false }
                return error.code == .hostUnreachable && error.message.contains("127.0.0.1:\(url.port!)")
            }
        }
    }

    @Test("a catalog URL that is not http(s) is refused at once", arguments: ["file:///tmp", "ftp://host", "itunes.apple.com"])
    func invalidBaseURL(url: String) {
        #expect {
            try ITunesCatalog(configuration: CatalogConfiguration(baseURL: URL(string: url)!), logger: quietLogger("t"))
        } throws: { ($0 as? CatalogError)?.code == .invalidCatalogURL }
    }
}
