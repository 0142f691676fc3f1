import Foundation
import Hummingbird
import Synchronization
import TestSupport
import Testing

@testable import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)` for download
/// tasks: the delegate sees each hop before it is followed; refusing it fails the task, or hands
/// the 3xx's own body over as the file where error bodies are delivered, as Apple's does.
@Suite("Redirects of download tasks seen by the delegate", .timeLimit(.minutes(1)))
struct DownloadRedirectDelegateTests {
    final class Redirects: ResumableDownloadDelegate, Sendable {
        let follows: Bool
        let asked = Mutex<[(status: Int, from: String, to: String)]>([])
        let ended = AsyncStream<(file: Data?, error: (any Error)?)>.makeStream()
        let file = Mutex<Data?>(nil)

        init(follows: Bool) { self.follows = follows }

        func urlSession(
            _ session: ResumableURLSession, task: ResumableDownloadTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            asked.withLock { $0.append((response.statusCode, response.url?.path ?? "", request.url?.path ?? "")) }
            completionHandler(follows ? request : nil)
        }

        func urlSession(
            _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didFinishDownloadingTo location: URL
        ) {
            file.withLock { $0 = try? Data(contentsOf: location) }
        }

        func urlSession(_ session: ResumableURLSession, task: ResumableDownloadTask, didCompleteWithError error: (any Error)?) {
            ended.continuation.yield((file.withLock { $0 }, error))
        }
    }

    /// `/hop` is a 307 to `/end`, which serves 100 kB and counts.
    private func router(ends: RequestLog<String>) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/hop") { _, _ in
            Response(
                status: .temporaryRedirect, headers: [.location: "/end"],
                body: .init(byteBuffer: ByteBuffer(string: "<a href=\"/end\">moved</a>")))
        }
        router.get("/end") { _, _ in
            ends.append("end")
            return Response(
                status: .ok, headers: [.eTag: "\"v1\""],
                body: .init(byteBuffer: ByteBuffer(bytes: [UInt8](repeating: 7, count: 100_000))))
        }
        return router
    }

    private func download(
        _ url: URL, delegate: Redirects, folder: URL, deliversBodies: Bool = false,
        afterEngineStart: (@Sendable () async -> Void)? = nil
    ) async -> (file: Data?, error: (any Error)?, status: Int?) {
        let configuration = ResumableURLSessionConfiguration.ephemeral
        configuration.stateDirectory = folder
        configuration.afterEngineStart = afterEngineStart
        configuration.deliversHTTPErrorBodies = deliversBodies
        let session = ResumableURLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.downloadTask(with: url)
        task.resume()
        var ends = delegate.ended.stream.makeAsyncIterator()
        let (file, error) = await ends.next() ?? (nil, nil)
        return (file, error, (task.response as? HTTPURLResponse)?.statusCode)
    }

    @Test("the delegate sees the 307 and the next request; answering it follows, and the file arrives")
    func followed() async throws {
        let ends = RequestLog<String>()
        try await withTestServer(router(ends: ends)) { base in
            try await withTemporaryDirectory { folder in
                let delegate = Redirects(follows: true)
                let (file, error, _) = await download(base.appendingPathComponent("hop"), delegate: delegate, folder: folder)
                #expect(error == nil)
                #expect(file?.count == 100_000)
                let asked = delegate.asked.withLock { $0 }
                #expect(
                    asked.count == 1 && asked.first?.status == 307 && asked.first?.from == "/hop" && asked.first?.to == "/end")
            }
        }
    }

    @Test("answering nil fails the task with badServerResponse naming the 3xx; the next URL is never asked")
    func refused() async throws {
        let ends = RequestLog<String>()
        try await withTestServer(router(ends: ends)) { base in
            try await withTemporaryDirectory { folder in
                let delegate = Redirects(follows: false)
                let (file, error, _) = await download(base.appendingPathComponent("hop"), delegate: delegate, folder: folder)
                #expect(file == nil)
                let failure = try #require(error as? URLError)
                #expect(failure.code == .badServerResponse)
                #expect(failure.localizedDescription.contains("307"), "\(failure.localizedDescription)")
                #expect(ends.count == 0)
                #expect(delegate.asked.withLock { $0.count } == 1)
            }
        }
    }

    @Test("a 307 that comes back before the task's start has returned from the engine is still put to the delegate")
    func redirectBeforeTheStartReturns() async throws {
        let ends = RequestLog<String>()
        try await withTestServer(router(ends: ends)) { base in
            try await withTemporaryDirectory { folder in
                let delegate = Redirects(follows: false)
                // The start held until the delegate is asked or the next URL is (at most 5 s).
                let (file, error, _) = await download(base.appendingPathComponent("hop"), delegate: delegate, folder: folder) {
                    _ = await eventually(within: .seconds(5)) { !delegate.asked.withLock { $0.isEmpty } || ends.count > 0 }
                }
                #expect(file == nil)
                #expect((error as? URLError)?.code == .badServerResponse, "\(String(describing: error))")
                #expect(ends.count == 0)
                #expect(delegate.asked.withLock { $0.count } == 1)
            }
        }
    }

    @Test("with error bodies delivered, answering nil hands the 307's own body over as the file, its response the 307")
    func refusedDelivered() async throws {
        let ends = RequestLog<String>()
        try await withTestServer(router(ends: ends)) { base in
            try await withTemporaryDirectory { folder in
                let delegate = Redirects(follows: false)
                let (file, error, status) = await download(
                    base.appendingPathComponent("hop"), delegate: delegate, folder: folder, deliversBodies: true)
                #expect(error == nil, "\(String(describing: error))")
                #expect(file == Data("<a href=\"/end\">moved</a>".utf8))
                #expect(status == 307)
                #expect(ends.count == 0)
                #expect(delegate.asked.withLock { $0.count } == 1)
            }
        }
    }
}
