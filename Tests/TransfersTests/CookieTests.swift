import Foundation
import Hummingbird
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cookies as Foundation's sessions keep them: stored from every response of a redirect chain,
/// sent on later requests, switched off by the configuration or the request, and kept apart in
/// an ephemeral session's own jar.
@Suite("Cookies of data tasks", .timeLimit(.minutes(1)))
struct CookieTests {
    /// `/login` sets `session` and redirects to `/home`, which sets `seen`; `/check` sets nothing.
    /// Every request's `Cookie` field (or "none") is logged with its path.
    private func router(log: RequestLog<String>) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/login") { request, _ in
            log.append("login: " + (request.headers[.cookie] ?? "none"))
            return Response(status: .found, headers: [.location: "/home", .setCookie: "session=abc123; Path=/"])
        }
        router.get("/home") { request, _ in
            log.append("home: " + (request.headers[.cookie] ?? "none"))
            return Response(
                status: .ok, headers: [.setCookie: "seen=yes; Path=/"], body: .init(byteBuffer: ByteBuffer(string: "home")))
        }
        router.get("/check") { request, _ -> String in
            log.append("check: " + (request.headers[.cookie] ?? "none"))
            return "checked"
        }
        return router
    }

    private func get(_ request: URLRequest, in session: ResumableURLSession) async throws -> String {
        let (data, _) = try await session.data(for: request)
        return String(decoding: data, as: UTF8.self)
    }

    private func session(_ configuration: ResumableURLSessionConfiguration, folder: URL) -> ResumableURLSession {
        configuration.stateDirectory = folder
        return ResumableURLSession(configuration: configuration)
    }

    /// A jar in memory, not the process's shared one (which Foundation keeps on disk).
    private func privateJar() throws -> HTTPCookieStorage {
        try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
    }

    @Test("a cookie set by a redirect is sent on the next hop; both are sent on a later request")
    func acrossRedirects() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let configuration = ResumableURLSessionConfiguration.default
                let jar = try privateJar()
                configuration.httpCookieStorage = jar
                let session = session(configuration, folder: folder)
                defer { session.invalidateAndCancel() }
                #expect(try await get(URLRequest(url: base.appendingPathComponent("login")), in: session) == "home")
                #expect(try await get(URLRequest(url: base.appendingPathComponent("check")), in: session) == "checked")
                #expect(log.all.first == "login: none")
                #expect(log.all.dropFirst().first == "home: session=abc123")
                let last = try #require(log.all.last)
                #expect(last.hasPrefix("check: ") && last.contains("session=abc123") && last.contains("seen=yes"), "\(last)")
                #expect(Set((jar.cookies ?? []).map(\.name)) == ["session", "seen"])
            }
        }
    }

    @Test("httpShouldSetCookies false sends none; the accept policy .never stores none; a request's own Cookie wins")
    func switchedOff() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let configuration = ResumableURLSessionConfiguration.default
                let jar = try privateJar()
                configuration.httpCookieStorage = jar
                configuration.httpShouldSetCookies = false
                let session = session(configuration, folder: folder)
                defer { session.invalidateAndCancel() }
                _ = try await get(URLRequest(url: base.appendingPathComponent("login")), in: session)
                #expect(log.all == ["login: none", "home: none"])
                #expect(jar.cookies?.count == 2)

                var own = URLRequest(url: base.appendingPathComponent("check"))
                own.setValue("mine=1", forHTTPHeaderField: "Cookie")
                configuration.httpShouldSetCookies = true
                let sending = self.session(configuration, folder: folder)
                defer { sending.invalidateAndCancel() }
                _ = try await get(own, in: sending)
                #expect(log.all.last == "check: mine=1")
                var none = URLRequest(url: base.appendingPathComponent("check"))
                none.httpShouldHandleCookies = false
                _ = try await get(none, in: sending)
                #expect(log.all.last == "check: none")

                let never = ResumableURLSessionConfiguration.default
                let emptyJar = try privateJar()
                never.httpCookieStorage = emptyJar
                never.httpCookieAcceptPolicy = .never
                let refusing = self.session(never, folder: folder)
                defer { refusing.invalidateAndCancel() }
                _ = try await get(URLRequest(url: base.appendingPathComponent("login")), in: refusing)
                #expect(emptyJar.cookies?.isEmpty != false)
            }
        }
    }

    @Test("an ephemeral session has a jar of its own: another ephemeral session and the shared jar never see its cookies")
    func ephemeralJar() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let first = session(.ephemeral, folder: folder)
                defer { first.invalidateAndCancel() }
                _ = try await get(URLRequest(url: base.appendingPathComponent("login")), in: first)
                _ = try await get(URLRequest(url: base.appendingPathComponent("check")), in: first)
                #expect(log.all.last?.contains("session=abc123") == true, "\(log.all)")
                let second = session(.ephemeral, folder: folder)
                defer { second.invalidateAndCancel() }
                _ = try await get(URLRequest(url: base.appendingPathComponent("check")), in: second)
                #expect(log.all.last == "check: none")
                #expect(HTTPCookieStorage.shared.cookies(for: base)?.isEmpty != false)
            }
        }
    }
}
