import Foundation
import Hummingbird
import Synchronization
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)`, as Foundation's
/// tests use it: a delegate sees each redirect before it is followed, and answering `nil` ends the
/// task with the 3xx itself.
@Suite("Redirects seen by the delegate", .timeLimit(.minutes(1)))
struct RedirectDelegateTests {
    /// Answers each redirect with `follows`, noting the 3xx's status and URL and the next URL.
    final class Redirects: ResumableDataDelegate, Sendable {
        let follows: Bool
        let asked = Mutex<[(status: Int, from: String, to: String)]>([])

        init(follows: Bool) { self.follows = follows }

        func urlSession(
            _ session: ResumableURLSession, task: ResumableDataTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            asked.withLock {
                $0.append((response.statusCode, response.url?.path ?? "", request.url?.path ?? ""))
            }
            completionHandler(follows ? request : nil)
        }
    }

    /// `/hop` redirects to `/end` (302, with a body of its own); `/end` answers and counts.
    private func router(ends: RequestLog<String>) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/hop") { _, _ in
            Response(status: .found, headers: [.location: "/end"], body: .init(byteBuffer: ByteBuffer(string: "moved")))
        }
        router.get("/end") { _, _ -> String in
            ends.append("end")
            return "arrived"
        }
        return router
    }

    private func fetch(_ url: URL, delegate: Redirects, folder: URL) async -> (Data?, URLResponse?, (any Error)?) {
        let configuration = ResumableURLSessionConfiguration.default
        configuration.stateDirectory = folder
        let session = ResumableURLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        return await withCheckedContinuation { continuation in
            session.dataTask(with: url) { continuation.resume(returning: ($0, $1, $2)) }.resume()
        }
    }

    @Test("the delegate sees the 302 and the next request before it is followed; answering it follows")
    func seenAndFollowed() async throws {
        let ends = RequestLog<String>()
        try await withTestServer(router(ends: ends)) { base in
            try await withTemporaryDirectory { folder in
                let delegate = Redirects(follows: true)
                let (data, response, error) = await fetch(base.appendingPathComponent("hop"), delegate: delegate, folder: folder)
                #expect(error == nil)
                #expect(data.map { String(decoding: $0, as: UTF8.self) } == "arrived")
                #expect((response as? HTTPURLResponse)?.url?.path == "/end")
                let asked = delegate.asked.withLock { $0 }
                #expect(asked.count == 1 && asked.first?.status == 302, "\(asked)")
                #expect(asked.first?.from == "/hop" && asked.first?.to == "/end", "\(asked)")
                #expect(ends.count == 1)
            }
        }
    }

    @Test("answering nil stops at the redirect: the task ends with the 302 and its own body; the next URL is never asked")
    func refused() async throws {
        let ends = RequestLog<String>()
        try await withTestServer(router(ends: ends)) { base in
            try await withTemporaryDirectory { folder in
                let delegate = Redirects(follows: false)
                let (data, response, error) = await fetch(base.appendingPathComponent("hop"), delegate: delegate, folder: folder)
                #expect(error == nil)
                #expect((response as? HTTPURLResponse)?.statusCode == 302)
                #expect(data.map { String(decoding: $0, as: UTF8.self) } == "moved")
                #expect(ends.count == 0, "the redirect was followed")
            }
        }
    }
}
