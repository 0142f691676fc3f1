import Crypto
import Foundation
import Hummingbird
import Synchronization
import TestSupport
import Testing

@testable import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTP authentication challenges as Foundation's tests pose them: a 401 with Basic or Digest
/// reaches `urlSession(_:task:didReceive:completionHandler:)`, and each disposition does what
/// Apple's does.
@Suite("Authentication challenges", .timeLimit(.minutes(1)))
struct AuthenticationTests {
    /// Answers every challenge with the next of `answers` (the last one again when they run out),
    /// noting what it was asked.
    final class Answers: ResumableDataDelegate, Sendable {
        let answers: [(URLSession.AuthChallengeDisposition, URLCredential?)]
        let asked = Mutex<[(realm: String?, method: String, failures: Int, status: Int?, proposed: String?)]>([])

        init(_ answers: [(URLSession.AuthChallengeDisposition, URLCredential?)]) { self.answers = answers }

        func urlSession(
            _ session: ResumableURLSession, task: ResumableDataTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            let count = asked.withLock { asked in
                asked.append(
                    (
                        challenge.protectionSpace.realm, challenge.protectionSpace.authenticationMethod,
                        challenge.previousFailureCount, (challenge.failureResponse as? HTTPURLResponse)?.statusCode,
                        challenge.proposedCredential?.user
                    ))
                return asked.count
            }
            let (disposition, credential) = answers[min(count, answers.count) - 1]
            completionHandler(disposition, credential)
        }
    }

    static let user = "mufasa"
    static let password = "Circle of Life"

    /// `/basic` and `/digest` answer "welcome" to the right credentials and 401 with their
    /// challenge otherwise (the Digest check computed here, apart from the session's code).
    private func router(log: RequestLog<String>) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/basic") { request, _ in
            let authorization = request.headers[.authorization]
            log.append("basic: " + (authorization ?? "none"))
            let expected = "Basic " + Data("\(Self.user):\(Self.password)".utf8).base64EncodedString()
            guard authorization == expected else {
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Basic realm=\"songs\", charset=\"UTF-8\""])
            }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "welcome")))
        }
        router.get("/digest") { request, _ in
            let authorization = request.headers[.authorization]
            log.append("digest: " + (authorization ?? "none"))
            guard let authorization, Self.digestValid(authorization, method: "GET", uri: request.uri.description) else {
                return Response(
                    status: .unauthorized,
                    headers: [
                        .wwwAuthenticate: "Basic realm=\"previews\"",
                        .wwwAuthenticate:
                            "Digest realm=\"previews\", qop=\"auth\", nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\"",
                    ])
            }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "welcome")))
        }
        return router
    }

    /// RFC 7616's check of a Digest answer with MD5 and qop=auth.
    static func digestValid(_ authorization: String, method: String, uri: String) -> Bool {
        guard authorization.hasPrefix("Digest ") else { return false }
        var fields: [String: String] = [:]
        for part in authorization.dropFirst(7).components(separatedBy: ", ") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { fields[pair[0]] = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
        let md5 = { (text: String) in Insecure.MD5.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined() }
        guard fields["username"] == user, fields["uri"] == uri, let nonce = fields["nonce"], let nc = fields["nc"],
            let cnonce = fields["cnonce"], fields["qop"] == "auth", fields["opaque"] == "5ccc069c403ebaf9f0171e9517f40e41"
        else { return false }
        let first = md5("\(user):previews:\(password)")
        let second = md5("\(method):\(uri)")
        return fields["response"] == md5("\(first):\(nonce):\(nc):\(cnonce):auth:\(second)")
    }

    private func fetch(
        _ url: URL, delegate: Answers, configure: (ResumableURLSessionConfiguration) -> Void = { _ in }, folder: URL
    ) async -> (String?, Int?, (any Error)?) {
        let configuration = ResumableURLSessionConfiguration.ephemeral
        configuration.stateDirectory = folder
        configure(configuration)
        let session = ResumableURLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        return await withCheckedContinuation { continuation in
            session.dataTask(with: url) { data, response, error in
                continuation.resume(
                    returning: (
                        data.map { String(decoding: $0, as: UTF8.self) }, (response as? HTTPURLResponse)?.statusCode, error
                    ))
            }.resume()
        }
    }

    private var right: URLCredential { URLCredential(user: Self.user, password: Self.password, persistence: .none) }
    private var wrong: URLCredential { URLCredential(user: Self.user, password: "Hakuna", persistence: .none) }

    @Test("Basic: a wrong credential, then the right one: asked twice (failures 0 then 1, the last one proposed), then 200")
    func basic() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let delegate = Answers([(.useCredential, wrong), (.useCredential, right)])
                let (body, status, error) = await fetch(base.appendingPathComponent("basic"), delegate: delegate, folder: folder)
                #expect(error == nil)
                #expect(status == 200 && body == "welcome")
                let asked = delegate.asked.withLock { $0 }
                #expect(asked.map(\.failures) == [0, 1])
                #expect(
                    asked.allSatisfy {
                        $0.realm == "songs" && $0.method == NSURLAuthenticationMethodHTTPBasic && $0.status == 401
                    })
                #expect(asked.last?.proposed == Self.user)
                #expect(log.count == 3)
            }
        }
    }

    @Test("Digest is chosen over Basic and answered as RFC 7616 computes it (MD5, qop=auth, opaque)")
    func digest() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let delegate = Answers([(.useCredential, right)])
                let (body, status, error) = await fetch(
                    base.appendingPathComponent("digest").appending(queryItems: [URLQueryItem(name: "q", value: "a b")]),
                    delegate: delegate, folder: folder)
                #expect(error == nil)
                #expect(status == 200 && body == "welcome", "\(log.all)")
                #expect(delegate.asked.withLock { $0.map(\.method) } == [NSURLAuthenticationMethodHTTPDigest])
            }
        }
    }

    @Test(
        "reject or no credential: the 401 is the answer; cancel: URLError.cancelled; default handling uses the stored credential once"
    )
    func dispositions() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let url = base.appendingPathComponent("basic")
                for answer in [
                    (URLSession.AuthChallengeDisposition.rejectProtectionSpace, URLCredential?.none), (.useCredential, nil),
                ] {
                    let (_, status, error) = await fetch(url, delegate: Answers([answer]), folder: folder)
                    #expect(error == nil && status == 401)
                }
                let (_, _, cancelled) = await fetch(
                    url, delegate: Answers([(.cancelAuthenticationChallenge, nil)]), folder: folder)
                #expect((cancelled as? URLError)?.code == .cancelled)

                // Nothing stored: the 401, after one question.
                let unanswered = Answers([(.performDefaultHandling, nil)])
                let (_, status, _) = await fetch(url, delegate: unanswered, folder: folder)
                #expect(status == 401 && unanswered.asked.withLock { $0.count } == 1)
                // A wrong credential stored: used once, then the 401 (never a loop).
                for (stored, expected) in [(wrong, 401), (right, 200)] {
                    let storage = try #require(URLSessionConfiguration.ephemeral.urlCredentialStorage)
                    let space = URLProtectionSpace(
                        host: "127.0.0.1", port: base.port ?? 80, protocol: "http", realm: "songs",
                        authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
                    // A credential of persistence .none is not kept by a storage, as on Apple's.
                    let kept = URLCredential(user: stored.user ?? "", password: stored.password ?? "", persistence: .forSession)
                    storage.setDefaultCredential(kept, for: space)
                    let defaults = Answers([(.performDefaultHandling, nil)])
                    let (_, status, _) = await fetch(
                        url, delegate: defaults, configure: { $0.urlCredentialStorage = storage }, folder: folder)
                    #expect(status == expected)
                    #expect(defaults.asked.withLock { $0.map(\.failures) } == (expected == 200 ? [0] : [0, 1]))
                }
            }
        }
    }

    @Test("RFC 7616's own example: MD5 and SHA-256 answers as the RFC gives them")
    func rfcExample() throws {
        let challenge = try #require(
            HTTPChallenge.parse(
                #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#
            ))
        let answer = challenge.authorization(
            user: "Mufasa", password: "Circle of Life", method: "GET", target: "/dir/index.html",
            clientNonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
        #expect(answer.contains(#"response="8ca523f5e9506fed4657c9700eebdbec""#), "\(answer)")
        var sha = challenge.parameters
        sha["algorithm"] = "SHA-256"
        let shaAnswer = HTTPChallenge(scheme: .digest, parameters: sha).authorization(
            user: "Mufasa", password: "Circle of Life", method: "GET", target: "/dir/index.html",
            clientNonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
        #expect(
            shaAnswer.contains(#"response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1""#), "\(shaAnswer)")
        #expect(HTTPChallenge.choose(from: ["Bearer realm=\"x\"", "Negotiate"]) == nil)
        #expect(HTTPChallenge.choose(from: ["Basic realm=\"a\"", "Digest realm=\"b\", nonce=\"n\""])?.realm == "b")
    }
}
