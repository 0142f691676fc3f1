import HTTPTypes
import HalfTunesKit
import Hummingbird

/// The web app's front door: refuses requests that a browser could be tricked into sending.
///
/// - DNS rebinding: the `Host` header must name this server (its bound address or localhost,
///   with its port); otherwise 421.
/// - CSRF: a request that changes something (anything but GET/HEAD/OPTIONS) must come from this
///   origin (`Origin`, else `Referer`) and carry the per-process token the page was given in
///   `X-HalfTunes-Token`; otherwise 403.
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
    let allowedHosts: Set<String>
    let token: String

    /// - Parameters:
    ///   - host: The address the server is bound to.
    ///   - port: The port it listens on.
    ///   - token: The per-process secret state-changing requests must carry.
    init(host: String, port: Int, token: String) {
        var hosts: Set<String> = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
        if host != "0.0.0.0" && host != "::" { hosts.insert(host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)") }
        if port == 80 { hosts.formUnion(["127.0.0.1", "localhost", "[::1]"]) }
        self.allowedHosts = hosts
        self.token = token
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        guard let host = request.head.authority?.lowercased(), allowedHosts.contains(host) else {
            return refusal(.misdirectedRequest, "this server only answers to its own address (Host header refused)")
        }
        if ![.get, .head, .options].contains(request.method) {
            let origin = request.headers[.origin] ?? request.headers[.referer].flatMap(Self.origin(ofURL:))
            guard origin == "http://\(host)" else {
                return refusal(.forbidden, "cross-origin request refused")
            }
            guard let presented = request.headers[Self.tokenHeader], Self.constantTimeEqual(presented, token) else {
                return refusal(.forbidden, "missing or wrong request token; reload the page")
            }
        }
        return try await next(request, context)
    }

    static var tokenHeader: HTTPField.Name { HTTPField.Name("X-HalfTunes-Token")! }

    private func refusal(_ status: HTTPResponse.Status, _ message: String) -> Response {
        ErrorMapping.response(DownloadError(.forbidden, message), status: status)
    }

    /// `scheme://host[:port]` of a URL.
    static func origin(ofURL url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return String(url[..<schemeEnd.upperBound]) + authority.lowercased()
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
