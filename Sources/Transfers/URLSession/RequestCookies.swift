import Foundation
import Synchronization
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
        store(setCookie: head.headers.filter { $0.name.lowercased() == "set-cookie" }.map(\.value), from: url)
    }

    /// Stores the cookies of a response's `Set-Cookie` values, answered by `url`.
    func store(setCookie values: [String], from url: URL) {
        guard let storage, policy != .never, !values.isEmpty else { return }
        if policy == .onlyFromMainDocumentDomain, let main = mainDocumentURL?.host?.lowercased(),
            let host = url.host?.lowercased(), host != main, !host.hasSuffix("." + main)
        {
            return
        }
        let joined = ["Set-Cookie": values.joined(separator: ", ")]
        for cookie in HTTPCookie.cookies(withResponseHeaderFields: joined, for: url) { storage.setCookie(cookie) }
    }
}

/// The cookie rules of a session's download tasks, by task number, read on the network's threads.
final class DownloadCookies: Sendable {
    private let rules = Mutex<[Int: RequestCookies]>([:])
    /// The rules of a task with none recorded (one a relaunch took up).
    let fallback: RequestCookies

    init(configuration: ResumableURLSessionConfiguration) {
        fallback = RequestCookies(configuration: configuration, request: URLRequest(url: URL(filePath: "/")))
    }

    func set(_ task: Int, _ cookies: RequestCookies?) { rules.withLock { $0[task] = cookies } }

    func rule(tag: String?) -> RequestCookies {
        guard let task = SessionCore.TaskTag(tag)?.task else { return fallback }
        return rules.withLock { $0[task] } ?? fallback
    }

    /// The engine's view of them.
    var engineCookies: TransferSession.Cookies {
        TransferSession.Cookies(
            fields: { tag, url in
                Dictionary(self.rule(tag: tag).fields(for: url).map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
            },
            received: { tag, url, values in self.rule(tag: tag).store(setCookie: values, from: url) })
    }
}
