import AsyncHTTPClient
import DemoCatalog
import Foundation
import Hummingbird
import Synchronization
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Data tasks, the tutorial's first half: its search as a data task, against local servers.
@Suite("Data tasks", .timeLimit(.minutes(1)))
struct DataTaskTests {
    private func session(_ folder: URL, delegate: (any ResumableURLSessionDelegate)? = nil) -> ResumableURLSession {
        let configuration = ResumableURLSessionConfiguration.default
        configuration.stateDirectory = folder.appendingPathComponent("state")
        return ResumableURLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    /// The body at `url` as AsyncHTTPClient gets it (independently of the session).
    private func reference(_ url: URL) async throws -> Data {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(10))
        return Data(try await response.body.collect(upTo: 16 << 20).readableBytesView)
    }

    /// A server that echoes a request's method and body, answers /missing 404 with a body, and
    /// never answers /stall.
    private func echoRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.on("/echo", method: .post) { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "POST " + String(buffer: body))))
        }
        router.on("/echo", method: .head) { _, _ in Response(status: .ok, headers: [.contentLength: "5"]) }
        router.get("/missing") { _, _ in Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "no such song")))
        }
        router.get("/stall") { _, _ -> Response in
            try await Task.sleep(for: .seconds(3))
            return Response(status: .ok)
        }
        return router
    }

    @Test("the tutorial's search as a data task: the server's JSON byte for byte, its response, through the completion handler")
    func searchWithCompletionHandler() async throws {
        try await withDemoCatalog { _, base in
            try await withTemporaryDirectory { folder in
                let session = session(folder)
                defer { session.invalidateAndCancel() }
                let url = URL(string: "\(base)/search?media=music&entity=song&term=love")!
                let (data, response, error) = await withCheckedContinuation { continuation in
                    let task = session.dataTask(with: url) { continuation.resume(returning: ($0, $1, $2)) }
                    #expect(task.state == .suspended)
                    task.resume()
                }
                #expect(error == nil)
                let http = try #require(response as? HTTPURLResponse)
                #expect(
                    http.statusCode == 200 && http.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/javascript") == true
                )
                // The same answer as AsyncHTTPClient gets (its keys may come in another order).
                let object = try JSONSerialization.jsonObject(with: try #require(data)) as? NSDictionary
                let expected = try JSONSerialization.jsonObject(with: try await reference(url)) as? NSDictionary
                #expect(object != nil && object == expected)
                #expect((object?["results"] as? [Any])?.count == 5)
            }
        }
    }

    @Test("through the delegate: the response, then the body in pieces, then the end, never two at once")
    func delegateCalls() async throws {
        try await withDemoCatalog { catalog, base in
            try await withTemporaryDirectory { folder in
                let recorder = DataRecorder()
                let session = session(folder, delegate: recorder)
                defer { session.invalidateAndCancel() }
                let task = session.dataTask(with: previewURL(base, 1001))
                task.resume()
                #expect(await recorder.completion(of: task) == nil)
                let preview = try #require(await catalog.preview(for: 1001)).data
                #expect(sameBytes(recorder.body(of: task), preview))
                #expect(
                    task.countOfBytesReceived == Int64(preview.count)
                        && task.countOfBytesExpectedToReceive == Int64(preview.count))
                let calls = recorder.calls
                guard case .response(_, 200) = calls.first, case .completed = calls.last else {
                    Issue.record("calls out of order: \(calls)")
                    return
                }
                #expect(calls.count > 3 && !recorder.overlapped && task.state == .completed)
            }
        }
    }

    @Test("the delegate's .cancel ends the task with URLError.cancelled before any data")
    func dispositionCancel() async throws {
        try await withDemoCatalog { _, base in
            try await withTemporaryDirectory { folder in
                let recorder = DataRecorder(disposition: .cancel)
                let session = session(folder, delegate: recorder)
                defer { session.invalidateAndCancel() }
                let task = session.dataTask(with: previewURL(base, 1002))
                task.resume()
                let error = await recorder.completion(of: task)
                #expect((error as? URLError)?.code == .cancelled)
                #expect(recorder.body(of: task).isEmpty)
            }
        }
    }

    @Test("an error status is an answer: a 404's body arrives with the status, no error; POST sends its body; HEAD has none")
    func statusesAndMethods() async throws {
        try await withTestServer(echoRouter()) { base in
            try await withTemporaryDirectory { folder in
                let session = session(folder)
                defer { session.invalidateAndCancel() }
                let (missing, notFound) = try await session.data(from: base.appendingPathComponent("missing"))
                #expect(String(decoding: missing, as: UTF8.self) == "no such song")
                #expect((notFound as? HTTPURLResponse)?.statusCode == 404)
                var post = URLRequest(url: base.appendingPathComponent("echo"))
                post.httpMethod = "POST"
                post.httpBody = Data("term=price tag".utf8)
                let (echoed, _) = try await session.data(for: post)
                #expect(String(decoding: echoed, as: UTF8.self) == "POST term=price tag")
                var head = URLRequest(url: base.appendingPathComponent("echo"))
                head.httpMethod = "HEAD"
                let (nothing, headResponse) = try await session.data(for: head)
                #expect(nothing.isEmpty && (headResponse as? HTTPURLResponse)?.statusCode == 200)
            }
        }
    }

    @Test("cancelling the Swift task cancels the request; a refused port and an unknown host fail as Foundation names them")
    func failures() async throws {
        try await withTestServer(echoRouter()) { base in
            try await withTemporaryDirectory { folder in
                let session = session(folder)
                defer { session.invalidateAndCancel() }
                let waiting = Task { try await session.data(from: base.appendingPathComponent("stall")) }
                try await Task.sleep(for: .milliseconds(200))
                waiting.cancel()
                await #expect(throws: URLError.self) { _ = try await waiting.value }
                do { _ = try await waiting.value } catch let error as URLError { #expect(error.code == .cancelled) }
                try await withRefusingPort { refused in
                    do {
                        _ = try await session.data(from: refused)
                        Issue.record("a refused port answered")
                    } catch let error as URLError {
                        #expect(error.code == .cannotConnectToHost, "\(error)")
                    }
                }
                do {
                    _ = try await session.data(from: URL(string: "http://no-such-host.invalid/search")!)
                    Issue.record("an unknown host answered")
                } catch let error as URLError {
                    #expect(error.code == .cannotFindHost, "\(error)")
                }
            }
        }
    }

    @Test("a background session refuses data tasks, as Apple's does: completed at once with unsupportedURL")
    func backgroundRefuses() async throws {
        try await withTemporaryDirectory { folder in
            let configuration = ResumableURLSessionConfiguration.background(withIdentifier: "data-refused")
            configuration.stateDirectory = folder
            configuration.usesTransferAgent = false  // this process's alone, whatever agent the machine runs
            let session = ResumableURLSession(configuration: configuration, delegate: nil, delegateQueue: nil)
            defer { session.invalidateAndCancel() }
            let error = await withCheckedContinuation { continuation in
                let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/")!) { continuation.resume(returning: $2) }
                #expect(task.state == .completed)
                task.resume()
            }
            let refusal = try #require(error as? URLError)
            #expect(refusal.code == .unsupportedURL && refusal.localizedDescription.contains("background session"))
        }
    }

    @Test("a data task suspended mid-body delivers nothing more until resumed, then the rest, whole")
    func suspendMidBody() async throws {
        try await withDemoCatalog { catalog, base in
            try await withTemporaryDirectory { folder in
                // Paced, so that the body is still coming when the task is suspended.
                catalog.setFaults(PreviewFaults(bytesPerSecond: 400_000), for: 1003)
                let suspended = SuspendOnce()
                let recorder = DataRecorder(onData: { suspended.suspend($0) })
                let session = session(folder, delegate: recorder)
                defer { session.invalidateAndCancel() }
                let task = session.dataTask(with: previewURL(base, 1003))
                task.resume()
                await suspended.wait()
                // Pieces read before the suspension may still be handed over (a loaded machine
                // hands them late): once none has come for 200 ms (within 5 s), none more comes.
                var settled = recorder.calls.count
                let deadline = ContinuousClock.now + .seconds(5)
                repeat {
                    settled = recorder.calls.count
                    try await Task.sleep(for: .milliseconds(200))
                } while recorder.calls.count != settled && ContinuousClock.now < deadline
                try await Task.sleep(for: .milliseconds(500))
                #expect(task.state == .suspended)
                #expect(recorder.calls.count == settled, "pieces kept coming while suspended")
                task.resume()
                #expect(await recorder.completion(of: task) == nil)
                #expect(sameBytes(recorder.body(of: task), await catalog.preview(for: 1003)?.data))
            }
        }
    }
}

/// Suspends a task the first time it is handed over, and lets a test wait for that.
final class SuspendOnce: Sendable {
    private let state = Mutex<(done: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func suspend(_ task: ResumableDataTask) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>?? in
            guard !state.done else { return nil }
            state.done = true
            defer { state.waiter = nil }
            return .some(state.waiter)
        }
        guard let waiter else { return }
        task.suspend()
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.done { return true }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }
}
