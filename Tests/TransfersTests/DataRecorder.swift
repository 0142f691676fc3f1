import Foundation
import Synchronization
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `ResumableDataDelegate` that records every call in order, notes overlaps, and answers each
/// response with `disposition` (running `onData` inside each data call).
final class DataRecorder: ResumableDataDelegate, @unchecked Sendable {
    enum Call: @unchecked Sendable {
        case response(task: Int, status: Int)
        case data(task: Int, Data)
        case completed(task: Int, error: (any Error)?)
    }

    private struct State {
        var calls: [Call] = []
        var inside = 0
        var overlapped = false
        /// Waiters for a task's completion, by task: registered and resumed under the same lock.
        var waiters: [Int: CheckedContinuation<(any Error)?, Never>] = [:]
    }
    private let state = Mutex(State())
    let disposition: URLSession.ResponseDisposition
    let onData: @Sendable (ResumableDataTask) -> Void

    init(disposition: URLSession.ResponseDisposition = .allow, onData: @escaping @Sendable (ResumableDataTask) -> Void = { _ in })
    {
        self.disposition = disposition
        self.onData = onData
    }

    var calls: [Call] { state.withLock { $0.calls } }
    var overlapped: Bool { state.withLock { $0.overlapped } }

    /// The body pieces of a task, joined.
    func body(of task: ResumableDataTask) -> Data {
        calls.reduce(into: Data()) { if case .data(task.taskIdentifier, let piece) = $1 { $0.append(piece) } }
    }

    private func record(_ call: Call) {
        state.withLock { state in
            state.inside += 1
            if state.inside > 1 { state.overlapped = true }
        }
        state.withLock { state in
            state.calls.append(call)
            state.inside -= 1
        }
    }

    /// Waits for the task's completion call and returns its error; a `CancellationError` when
    /// the waiting task is cancelled first (a test's time limit ends a wait that never would).
    func completion(of task: ResumableDataTask) async -> (any Error)? {
        let id = task.taskIdentifier
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let finished = state.withLock { state -> (any Error)?? in
                    for case .completed(id, let error) in state.calls { return .some(error) }
                    if Task.isCancelled { return .some(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let finished { continuation.resume(returning: finished) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: CancellationError())
        }
    }

    func urlSession(
        _ session: ResumableURLSession, dataTask: ResumableDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        record(.response(task: dataTask.taskIdentifier, status: (response as? HTTPURLResponse)?.statusCode ?? 0))
        completionHandler(disposition)
    }

    func urlSession(_ session: ResumableURLSession, dataTask: ResumableDataTask, didReceive data: Data) {
        record(.data(task: dataTask.taskIdentifier, data))
        onData(dataTask)
    }

    func urlSession(_ session: ResumableURLSession, task: ResumableDataTask, didCompleteWithError error: (any Error)?) {
        let call = Call.completed(task: task.taskIdentifier, error: error)
        record(call)
        state.withLock { $0.waiters.removeValue(forKey: task.taskIdentifier) }?.resume(returning: error)
    }
}
