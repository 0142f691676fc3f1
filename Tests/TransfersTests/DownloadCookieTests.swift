import Foundation
import Hummingbird
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cookies of download tasks, as of data tasks: stored from every response of a redirect chain,
/// sent on the next hop and on later downloads, switched off by the configuration, and a
/// request's own `Cookie` field left as it is.
@Suite("Cookies of download tasks", .timeLimit(.minutes(1)))
struct DownloadCookieTests {
    static let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })

    /// `/login` sets `session` and redirects to `/file`, which serves ``body`` to that cookie only
    /// (403 otherwise). Every request's `Cookie` field (or "none") is logged with its path.
    private func router(log: RequestLog<String>) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/login") { request, _ in
            log.append("login: " + (request.headers[.cookie] ?? "none"))
            return Response(status: .found, headers: [.location: "/file", .setCookie: "session=abc123; Path=/"])
        }
        router.get("/file") { request, _ in
            let cookie = request.headers[.cookie]
            log.append("file: " + (cookie ?? "none"))
            guard cookie?.contains("session=abc123") == true else { return Response(status: .forbidden) }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(data: Self.body)))
        }
        return router
    }

    private func privateJar() throws -> HTTPCookieStorage {
        try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
    }

    @Test("a cookie the redirect sets goes with the next hop and with a later download; the shared jar gets none")
    func acrossRedirects() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let jar = try privateJar()
                try await withResumableSession(in: folder, { $0.httpCookieStorage = jar }) { session, recorder in
                    let login = session.downloadTask(with: base.appendingPathComponent("login"))
                    login.resume()
                    #expect(await recorder.completion(of: login) == nil)
                    let first = try #require(recorder.file(of: login))
                    #expect(sameBytes(first, Self.body))
                    let again = session.downloadTask(with: base.appendingPathComponent("file"))
                    again.resume()
                    #expect(await recorder.completion(of: again) == nil)
                    #expect(log.all == ["login: none", "file: session=abc123", "file: session=abc123"], "\(log.all)")
                    #expect(jar.cookies(for: base)?.map(\.name) == ["session"])
                    #expect(HTTPCookieStorage.shared.cookies(for: base)?.isEmpty ?? true)
                }
            }
        }
    }

    @Test("httpShouldSetCookies off: nothing is sent (the file answers 403); a request's own Cookie is sent as it is")
    func switchedOffOrOwn() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let jar = try privateJar()
                let tune = { (configuration: ResumableURLSessionConfiguration) in
                    configuration.httpCookieStorage = jar
                    configuration.httpShouldSetCookies = false
                }
                try await withResumableSession(in: folder, tune) { session, recorder in
                    let login = session.downloadTask(with: base.appendingPathComponent("login"))
                    login.resume()
                    let error = await recorder.completion(of: login) as? URLError
                    #expect(error?.code == .badServerResponse && error?.localizedDescription.contains("403") == true)
                    var own = URLRequest(url: base.appendingPathComponent("file"))
                    own.setValue("session=abc123", forHTTPHeaderField: "Cookie")
                    let mine = session.downloadTask(with: own)
                    mine.resume()
                    #expect(await recorder.completion(of: mine) == nil)
                    #expect(log.all == ["login: none", "file: none", "file: session=abc123"], "\(log.all)")
                }
            }
        }
    }
}
