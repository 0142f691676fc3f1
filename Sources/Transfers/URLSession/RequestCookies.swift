import Foundation
import TransferEngine

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request's cookies, as Foundation's sessions handle them: those stored for each hop's URL
/// are sent (unless the request names its own `Cookie` field or asks for none), and every
/// response's `Set-Cookie` fields are stored, as the session's accept policy allows.
struct RequestCookies: Sendable {
    let storage: HTTPCookieStorage?
    let sends: Bool
    let policy: HTTPCookie.AcceptPolicy
    let mainDocumentURL: URL?

    init(configuration: ResumableURLSessionConfiguration, request: URLRequest) {
        storage = configuration.httpCookieStorage
        sends =
            configuration.httpShouldSetCookies && request.httpShouldHandleCookies
            && request.value(forHTTPHeaderField: "Cookie") == nil
        policy = configuration.httpCookieAcceptPolicy
        mainDocumentURL = request.mainDocumentURL
    }

    /// The `Cookie` field for a request to `url`, if any cookie is stored for it.
    func fields(for url: URL) -> [(name: String, value: String)] {
        guard sends, let cookies = storage?.cookies(for: url), !cookies.isEmpty else { return [] }
        return HTTPCookie.requestHeaderFields(with: cookies).map { (name: $0.key, value: $0.value) }
    }

    /// Stores the cookies `head` sets, answered by `url`.
    func store(_ head: DataResponseHead, from url: URL) {
        guard let storage, policy != .never else { return }
        let values = head.headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value)
        guard !values.isEmpty else { return }
        if policy == .onlyFromMainDocumentDomain, let main = mainDocumentURL?.host?.lowercased(),
            let host = url.host?.lowercased(), host != main, !host.hasSuffix("." + main)
        {
            return
        }
        let joined = ["Set-Cookie": values.joined(separator: ", ")]
        for cookie in HTTPCookie.cookies(withResponseHeaderFields: joined, for: url) { storage.setCookie(cookie) }
    }
}
