import Foundation
import Synchronization
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `ResumableDownloadDelegate` that records every call, keeps a copy of each finished file, and
/// notes whether calls ever overlapped or ran on the main thread. Tests wait for the call they expect.
final class DelegateRecorder: NSObject, ResumableDownloadDelegate, @unchecked Sendable {
    enum Call: @unchecked Sendable {
        case wrote(task: Int, written: Int64, total: Int64, expected: Int64)
        case resumed(task: Int, offset: Int64, expected: Int64)
        case finished(task: Int, data: Data, location: URL)
        case completed(task: Int, error: (any Error)?)
        case backgroundEventsFinished
        case invalid((any Error)?)
    }

    private struct State {
        var calls: [Call] = []
        var waiters: [(match: @Sendable (Call) -> Bool, continuation: CheckedContinuation<Call, Never>)] = []
        var inside = 0
        var overlapped = false
        var onMainThread = false
        var locationsAfterReturn: [URL] = []
        /// `OperationQueue.current` of each call, in order (nil: none).
        var queues: [ObjectIdentifier?] = []
    }

    private let state = Mutex(State())

    var calls: [Call] { state.withLock { $0.calls } }
    /// Whether two delegate calls ever ran at once.
    var overlapped: Bool { state.withLock { $0.overlapped } }
    /// Whether a delegate call ever ran on the main thread.
    var calledOnMainThread: Bool { state.withLock { $0.onMainThread } }
    /// Whether every call so far ran on `queue` (`OperationQueue.current`), and there was one at least.
    func everyCall(ranOn queue: OperationQueue) -> Bool {
        state.withLock { state in !state.queues.isEmpty && state.queues.allSatisfy { $0 == ObjectIdentifier(queue) } }
    }
    /// The `location`s handed to didFinishDownloadingTo (each checked to exist during the call).
    var locations: [URL] { state.withLock { $0.locationsAfterReturn } }

    private func record(_ call: Call, _ work: () -> Void = {}) {
        let main = Thread.isMainThread
        let queue = OperationQueue.current.map(ObjectIdentifier.init)
        state.withLock { state in
            state.queues.append(queue)
            state.inside += 1
            if state.inside > 1 { state.overlapped = true }
            if main { state.onMainThread = true }
        }
        work()
        let ready = state.withLock { state -> [(CheckedContinuation<Call, Never>)] in
            state.inside -= 1
            state.calls.append(call)
            let matching = state.waiters.filter { $0.match(call) }.map(\.continuation)
            state.waiters.removeAll { $0.match(call) }
            return matching
        }
        ready.forEach { $0.resume(returning: call) }
    }

    /// The first call (already made or still to come) that matches.
    func first(where match: @escaping @Sendable (Call) -> Bool) async -> Call {
        await withCheckedContinuation { continuation in
            let found = state.withLock { state -> Call? in
                if let call = state.calls.first(where: match) { return call }
                state.waiters.append((match, continuation))
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    /// Waits for the task's didCompleteWithError and returns its error.
    func completion(of task: ResumableDownloadTask) async -> (any Error)? {
        let id = task.taskIdentifier
        guard case .completed(_, let error) = await first(where: { if case .completed(id, _) = $0 { true } else { false } })
        else { return nil }
        return error
    }

    /// The finished file's bytes for a task.
    func file(of task: ResumableDownloadTask) -> Data? {
        for case .finished(task.taskIdentifier, let data, _) in calls { return data }
        return nil
    }

    /// The progress calls of a task, in order.
    func progress(of task: ResumableDownloadTask) -> [(written: Int64, total: Int64, expected: Int64)] {
        calls.compactMap { call in
            if case .wrote(task.taskIdentifier, let written, let total, let expected) = call { return (written, total, expected) }
            return nil
        }
    }

    /// Waits until a task has written at least `bytes`.
    func wrote(_ task: ResumableDownloadTask, atLeast bytes: Int64) async {
        let id = task.taskIdentifier
        _ = await first { if case .wrote(id, _, let total, _) = $0 { total >= bytes } else { false } }
    }

    func urlSession(_ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didFinishDownloadingTo location: URL) {
        let data = (try? Data(contentsOf: location)) ?? Data()
        state.withLock { $0.locationsAfterReturn.append(location) }
        record(.finished(task: downloadTask.taskIdentifier, data: data, location: location))
    }

    func urlSession(
        _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        record(
            .wrote(
                task: downloadTask.taskIdentifier, written: bytesWritten, total: totalBytesWritten,
                expected: totalBytesExpectedToWrite))
    }

    func urlSession(
        _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64
    ) {
        record(.resumed(task: downloadTask.taskIdentifier, offset: fileOffset, expected: expectedTotalBytes))
    }

    func urlSession(_ session: ResumableURLSession, task: ResumableDownloadTask, didCompleteWithError error: (any Error)?) {
        record(.completed(task: task.taskIdentifier, error: error))
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: ResumableURLSession) {
        record(.backgroundEventsFinished)
    }

    func urlSession(_ session: ResumableURLSession, didBecomeInvalidWithError error: (any Error)?) {
        record(.invalid(error))
    }
}

/// A default-configuration session whose state folder is `folder`, invalidated afterwards.
func withResumableSession<T>(
    in folder: URL, _ tune: (ResumableURLSessionConfiguration) -> Void = { _ in },
    _ body: (ResumableURLSession, DelegateRecorder) async throws -> T
) async throws -> T {
    let configuration = ResumableURLSessionConfiguration.default
    configuration.stateDirectory = folder.appendingPathComponent("state")
    tune(configuration)
    let recorder = DelegateRecorder()
    let session = ResumableURLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
    defer { session.invalidateAndCancel() }
    return try await body(session, recorder)
}
