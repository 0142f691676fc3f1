import Foundation
import Hummingbird
import Synchronization
import TestSupport
import Testing

@testable import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTP authentication challenges of download tasks: a 401 with Basic or Digest reaches the
/// download delegate's `urlSession(_:task:didReceive:completionHandler:)`; the credential it
/// gives fetches the file, and never goes to another origin a redirect leads to.
@Suite("Authentication challenges of download tasks", .timeLimit(.minutes(1)))
struct DownloadAuthenticationTests {
    /// Answers every challenge with the next of `answers` (the last one again when they run out).
    final class Answers: ResumableDownloadDelegate, Sendable {
        let answers: [(URLSession.AuthChallengeDisposition, URLCredential?)]
        let asked = Mutex<[(method: String, failures: Int, status: Int?)]>([])
        let file = Mutex<Data?>(nil)
        let ended = AsyncStream<(any Error)?>.makeStream()
        /// What the delegate heard, and when (since it was made): told when a task does not end.
        let heard = Mutex<[String]>([])
        private let made = ContinuousClock.now

        func note(_ what: String) {
            let at = (ContinuousClock.now - made).formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 2)))
            heard.withLock { $0.append("\(what) at \(at)") }
        }

        init(_ answers: [(URLSession.AuthChallengeDisposition, URLCredential?)]) { self.answers = answers }

        func urlSession(
            _ session: ResumableURLSession, task: ResumableDownloadTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            let count = asked.withLock { asked in
                asked.append(
                    (
                        challenge.protectionSpace.authenticationMethod, challenge.previousFailureCount,
                        (challenge.failureResponse as? HTTPURLResponse)?.statusCode
                    ))
                return asked.count
            }
            let (disposition, credential) = answers[min(count, answers.count) - 1]
            note("challenge \(count)")
            completionHandler(disposition, credential)
        }

        func urlSession(
            _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didFinishDownloadingTo location: URL
        ) {
            file.withLock { $0 = try? Data(contentsOf: location) }
            note("file")
        }

        func urlSession(_ session: ResumableURLSession, task: ResumableDownloadTask, didCompleteWithError error: (any Error)?) {
            note("end")
            ended.continuation.yield(error)
        }
    }

    static let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    static let user = AuthenticationTests.user
    static let password = AuthenticationTests.password

    /// `/basic` and `/digest` serve ``body`` to the right credentials and 401 with their
    /// challenge otherwise; `/moved` (Basic too) answers the right ones with a 302 to `elsewhere`.
    private func router(log: RequestLog<String>, elsewhere: URL? = nil) -> Router<BasicRequestContext> {
        let router = Router()
        let basic = "Basic " + Data("\(Self.user):\(Self.password)".utf8).base64EncodedString()
        router.get("/basic") { request, _ in
            log.append("basic: " + (request.headers[.authorization] ?? "none"))
            guard request.headers[.authorization] == basic else {
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Basic realm=\"songs\""])
            }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(data: Self.body)))
        }
        router.get("/digest") { request, _ in
            let authorization = request.headers[.authorization]
            log.append("digest: " + (authorization == nil ? "none" : "given"))
            guard let authorization,
                AuthenticationTests.digestValid(authorization, method: "GET", uri: request.uri.description)
            else {
                return Response(
                    status: .unauthorized,
                    headers: [
                        .wwwAuthenticate:
                            "Digest realm=\"previews\", qop=\"auth\", nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\", opaque=\"5ccc069c403ebaf9f0171e9517f40e41\""
                    ])
            }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(data: Self.body)))
        }
        router.get("/moved") { request, _ in
            log.append("moved: " + (request.headers[.authorization] ?? "none"))
            guard request.headers[.authorization] == basic, let elsewhere else {
                return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Basic realm=\"songs\""])
            }
            return Response(status: .found, headers: [.location: elsewhere.absoluteString])
        }
        router.get("/free") { request, _ in
            log.append("free: " + (request.headers[.authorization] ?? "none"))
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(data: Self.body)))
        }
        return router
    }

    private func download(
        _ url: URL, delegate: Answers, folder: URL, afterEngineStart: (@Sendable () async -> Void)? = nil
    ) async -> (file: Data?, error: (any Error)?) {
        let configuration = ResumableURLSessionConfiguration.ephemeral
        configuration.stateDirectory = folder
        configuration.urlCredentialStorage = nil
        configuration.afterEngineStart = afterEngineStart
        let session = ResumableURLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.downloadTask(with: url).resume()
        let ended = Task {
            var ends = delegate.ended.stream.makeAsyncIterator()
            return await ends.next() ?? nil
        }
        // A task whose end was lost never ends: a bound, so that this test fails instead of hanging.
        let bound = Task {
            try await Task.sleep(for: .seconds(20))
            ended.cancel()
        }
        defer { bound.cancel() }
        let error = await ended.value
        #expect(!ended.isCancelled, "the task did not end within 20 s; heard: \(delegate.heard.withLock { $0 })")
        return (delegate.file.withLock { $0 }, error)
    }

    private var right: URLCredential { URLCredential(user: Self.user, password: Self.password, persistence: .none) }
    private var wrong: URLCredential { URLCredential(user: Self.user, password: "Hakuna", persistence: .none) }

    @Test("Basic: a wrong credential, then the right one: asked twice (failures 0 then 1, each with the 401), then the file")
    func basic() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let delegate = Answers([(.useCredential, wrong), (.useCredential, right)])
                let (file, error) = await download(base.appendingPathComponent("basic"), delegate: delegate, folder: folder)
                #expect(error == nil, "\(String(describing: error))")
                #expect(file.map { sameBytes($0, Self.body) } == true)
                let asked = delegate.asked.withLock { $0 }
                #expect(asked.map(\.failures) == [0, 1] && asked.allSatisfy { $0.status == 401 }, "\(asked)")
                #expect(asked.first?.method == NSURLAuthenticationMethodHTTPBasic)
                let sent = log.all.map { $0.hasSuffix("none") ? "none" : $0.contains("SGFrdW5h") ? "wrong" : "right" }
                #expect(log.all.count == 3 && sent.first == "none" && sent.last == "right", "\(log.all)")
            }
        }
    }

    @Test("Digest (MD5, qop=auth): the right credential fetches the file in two requests")
    func digest() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let delegate = Answers([(.useCredential, right)])
                let (file, error) = await download(base.appendingPathComponent("digest"), delegate: delegate, folder: folder)
                #expect(error == nil, "\(String(describing: error))")
                #expect(file.map { sameBytes($0, Self.body) } == true)
                #expect(delegate.asked.withLock { $0.map(\.method) } == [NSURLAuthenticationMethodHTTPDigest])
                #expect(log.all == ["digest: none", "digest: given"])
            }
        }
    }

    @Test("a 401 that comes back before the task's start has returned from the engine is still put to the delegate")
    func challengeBeforeTheStartReturns() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let delegate = Answers([(.useCredential, right)])
                // The start held until the delegate is asked (at most 5 s): the 401 comes back meanwhile.
                let (file, error) = await download(base.appendingPathComponent("digest"), delegate: delegate, folder: folder) {
                    _ = await eventually(within: .seconds(5)) { !delegate.asked.withLock { $0.isEmpty } }
                }
                #expect(error == nil, "\(String(describing: error))")
                #expect(file.map { sameBytes($0, Self.body) } == true)
                #expect(delegate.asked.withLock { $0.count } == 1)
                #expect(log.all == ["digest: none", "digest: given"])
            }
        }
    }

    @Test("a transfer that ends before its task's start has returned from the engine still ends the task, with its file")
    func endBeforeTheStartReturns() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let delegate = Answers([])
                // The start held until the whole file is on disk (at most 5 s): its events come meanwhile.
                let (file, error) = await download(base.appendingPathComponent("free"), delegate: delegate, folder: folder) {
                    _ = await eventually(within: .seconds(5)) { Self.finishedFile(in: folder) }
                }
                #expect(error == nil, "\(String(describing: error))")
                #expect(file.map { sameBytes($0, Self.body) } == true)
                #expect(log.all == ["free: none"])
            }
        }
    }

    /// Whether a file of ``body``'s length, not a partial one, is somewhere under `folder`.
    private static func finishedFile(in folder: URL) -> Bool {
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey])
        return (files?.allObjects as? [URL] ?? []).contains { file in
            file.pathExtension != "part" && (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) == body.count
        }
    }

    @Test("cancelling the challenge ends the task with cancelled; taking the 401 fails it with badServerResponse naming 401")
    func refusals() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let cancelling = Answers([(.cancelAuthenticationChallenge, nil)])
                let (cancelledFile, cancelled) = await download(
                    base.appendingPathComponent("basic"), delegate: cancelling, folder: folder)
                #expect((cancelled as? URLError)?.code == .cancelled, "\(String(describing: cancelled))")
                #expect(cancelledFile == nil)
                let rejecting = Answers([(.rejectProtectionSpace, nil)])
                let (rejectedFile, rejected) = await download(
                    base.appendingPathComponent("basic"), delegate: rejecting, folder: folder)
                let failure = try #require(rejected as? URLError)
                #expect(failure.code == .badServerResponse && failure.localizedDescription.contains("401"), "\(failure)")
                #expect(rejectedFile == nil)
                #expect(log.all == ["basic: none", "basic: none"])
            }
        }
    }

    @Test("the credential stays with its origin: a redirect to another server gets no Authorization")
    func notToAnotherOrigin() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { other in
            try await withTestServer(router(log: log, elsewhere: other.appendingPathComponent("free"))) { base in
                try await withTemporaryDirectory { folder in
                    let delegate = Answers([(.useCredential, right)])
                    let (file, error) = await download(base.appendingPathComponent("moved"), delegate: delegate, folder: folder)
                    #expect(error == nil, "\(String(describing: error))")
                    #expect(file.map { sameBytes($0, Self.body) } == true)
                    #expect(log.all.first == "moved: none" && log.all.last == "free: none", "\(log.all)")
                    #expect(log.all.count == 3)
                }
            }
        }
    }
}
