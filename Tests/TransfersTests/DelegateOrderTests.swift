import Foundation
import Hummingbird
import Synchronization
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Delegate calls in order, one at a time, whatever the delegate queue: the width apps pass
/// (`OperationQueue()` of 8), with a delegate whose progress call takes a while.
@Suite("Delegate order on any queue", .timeLimit(.minutes(2)))
struct DelegateOrderTests {
    /// Records each task's calls in order and whether any two calls ever ran at once.
    final class SlowRecorder: ResumableDownloadDelegate, @unchecked Sendable {
        private struct State {
            var inside = 0
            var overlaps = 0
            var calls: [Int: [String]] = [:]
            var done = 0
            var waiter: CheckedContinuation<Void, Never>?
        }
        private let state = Mutex(State())
        let expected: Int

        init(expected: Int) { self.expected = expected }

        var overlaps: Int { state.withLock { $0.overlaps } }
        var calls: [Int: [String]] { state.withLock { $0.calls } }

        private func call(_ task: Int, _ name: String, pause: Duration = .zero) {
            state.withLock { state in
                state.inside += 1
                if state.inside > 1 { state.overlaps += 1 }
                state.calls[task, default: []].append(name)
            }
            if pause > .zero { Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18) }
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.inside -= 1
                if name == "completed" { state.done += 1 }
                guard state.done == expected else { return nil }
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }

        /// Returns once every task completed (the check and the wait under one lock: no lost wake-up).
        func allDone() async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.done == expected { return true }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        }

        func urlSession(
            _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didWriteData bytesWritten: Int64,
            totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
        ) {
            call(downloadTask.taskIdentifier, "wrote \(totalBytesWritten)", pause: .milliseconds(10))
        }

        func urlSession(_ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didFinishDownloadingTo location: URL)
        {
            let size = (try? FileManager.default.attributesOfItem(atPath: location.path)[.size] as? Int) ?? -1
            call(downloadTask.taskIdentifier, "finished \(size)")
        }

        func urlSession(_ session: ResumableURLSession, task: ResumableDownloadTask, didCompleteWithError error: (any Error)?) {
            call(task.taskIdentifier, error == nil ? "completed" : "failed")
        }
    }

    /// A server of 50 files of 200 KB, each sent in pieces, so each download reports progress several times.
    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/file/:n") { _, _ -> Response in
            let piece = ByteBuffer(repeating: 0x61, count: 40_000)
            return Response(
                status: .ok, headers: [.contentLength: "200000", .eTag: "\"x\""],
                body: .init { writer in
                    for _ in 0..<5 {
                        try await writer.write(piece)
                        try await Task.sleep(for: .milliseconds(15))
                    }
                    try await writer.finish(nil)
                })
        }
        return router
    }

    @Test(
        "50 downloads, a delegate queue of width 8, a 10 ms progress call: no two calls at once, each task's in order",
        arguments: 1...5)
    func widthEight(run: Int) async throws {
        try await withTestServer(router()) { base in
            try await withTemporaryDirectory { folder in
                let configuration = ResumableURLSessionConfiguration.default
                configuration.stateDirectory = folder
                configuration.httpMaximumConnectionsPerHost = 16
                let queue = OperationQueue()
                queue.maxConcurrentOperationCount = 8
                let recorder = SlowRecorder(expected: 50)
                let session = ResumableURLSession(configuration: configuration, delegate: recorder, delegateQueue: queue)
                defer { session.invalidateAndCancel() }
                for n in 0..<50 { session.downloadTask(with: base.appendingPathComponent("file/\(n)")).resume() }
                await recorder.allDone()
                #expect(recorder.overlaps == 0, "run \(run)")
                let calls = recorder.calls
                #expect(calls.count == 50)
                for (task, names) in calls {
                    #expect(names.suffix(2) == ["finished 200000", "completed"], "task \(task): \(names)")
                    let totals = names.dropLast(2).compactMap { Int($0.split(separator: " ").last ?? "") }
                    #expect(totals == totals.sorted() && totals.last == 200_000, "task \(task): \(names)")
                }
            }
        }
    }
}
