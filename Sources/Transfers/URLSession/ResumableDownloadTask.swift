import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One download in a ``ResumableURLSession``: Foundation's `URLSessionDownloadTask`, whose resume
/// data works and whose transfer survives the process (in a background session).
///
/// A task starts suspended; ``resume()`` starts it. Its properties can be read from any thread.
public final class ResumableDownloadTask: Sendable, CustomStringConvertible {
    /// Foundation's task states: `.running`, `.suspended`, `.canceling`, `.completed`.
    public typealias State = URLSessionTask.State

    /// Where a task's bytes come from.
    enum Origin: Sendable {
        case request(URLRequest)
        case resumeData(Data)
    }

    /// What the task shows, changed by its session.
    struct Status: Sendable, CountsSuspensions {
        var state: State = .suspended
        var response: URLResponse?
        var error: (any Error)?
        var received: Int64 = 0
        var expected: Int64 = -1
        var taskDescription: String?
        /// `suspend()` calls not yet matched by `resume()`: a task runs at 0 (it starts at 1, as corelibs counts).
        var suspendCount = 1
        var clientExpects: Int64 = -1
    }

    /// Identifies the task within its session (kept across relaunches of a background session).
    public let taskIdentifier: Int
    /// The request the task was made with (for a task from resume data, the original download's).
    public let originalRequest: URLRequest?
    /// The task's progress: `totalUnitCount` is the expected size, `completedUnitCount` the bytes on disk.
    public let progress: Progress

    let origin: Origin
    let status: Mutex<Status>
    /// Set when a completion handler replaces the delegate's finish and complete calls.
    let completion: (@Sendable (URL?, URLResponse?, (any Error)?) -> Void)?
    private let taskDelegate: DelegateBox
    private let send: @Sendable (SessionCommand) -> Void

    init(
        identifier: Int, origin: Origin, originalRequest: URLRequest?, status: Status = Status(),
        completion: (@Sendable (URL?, URLResponse?, (any Error)?) -> Void)? = nil,
        delegate: (any ResumableURLSessionDelegate)? = nil, send: @escaping @Sendable (SessionCommand) -> Void
    ) {
        self.taskDelegate = DelegateBox(delegate)
        self.taskIdentifier = identifier
        self.origin = origin
        self.originalRequest = originalRequest
        self.status = Mutex(status)
        self.completion = completion
        self.send = send
        self.progress = Progress(totalUnitCount: status.expected)
        progress.completedUnitCount = status.received
    }

    /// The request being made: the original one (redirects are followed inside the session and not shown).
    public var currentRequest: URLRequest? { originalRequest }
    /// The latest response head, once one arrived (after a resume, the 206 of the range request).
    public var response: URLResponse? { status.withLock { $0.response } }
    /// Why the task ended, if it failed or was cancelled.
    public var error: (any Error)? { status.withLock { $0.error } }
    /// Where the task is in its life.
    public var state: State { status.withLock { $0.state } }
    /// Bytes of the resource on disk so far (never goes down).
    public var countOfBytesReceived: Int64 { status.withLock { $0.received } }
    /// The resource's size, or -1 while unknown.
    public var countOfBytesExpectedToReceive: Int64 { status.withLock { $0.expected } }
    /// The size the app expects (-1, `NSURLSessionTransferSizeUnknown`, by default): kept for the
    /// app to read back; the session schedules nothing by it.
    public var countOfBytesClientExpectsToReceive: Int64 {
        get { status.withLock { $0.clientExpects } }
        set { status.withLock { $0.clientExpects = newValue } }
    }
    /// The task's own delegate (from ``ResumableURLSession/download(from:delegate:)``, or set
    /// before ``resume()``), told of this task's progress before the session's delegate would
    /// be; `nil` for most tasks.
    public var delegate: (any ResumableURLSessionDelegate)? {
        get { taskDelegate.delegate }
        set { taskDelegate.set(newValue) }
    }

    /// A label of the app's; kept with the transfer, so a relaunched background session gives it back.
    public var taskDescription: String? {
        get { status.withLock { $0.taskDescription } }
        set {
            status.withLock { $0.taskDescription = newValue }
            send(.describe(self))
        }
    }

    /// Starts the task, or resumes it after ``suspend()``. Suspensions nest, as corelibs counts
    /// them: a task suspended twice runs again at the second `resume()`. Does nothing once it is
    /// cancelled or completed.
    public func resume() {
        if status.withLock({ $0.countResume() }) { send(.resume(self)) }
    }

    /// Pauses the task, keeping its bytes (and its resource timeout, which waits meanwhile);
    /// ``resume()`` continues with a range request.
    public func suspend() {
        if status.withLock({ $0.countSuspend() }) { send(.suspend(self)) }
    }

    /// Cancels the task and deletes its bytes; it completes with `URLError.cancelled`.
    public func cancel() {
        if move(from: [.running, .suspended], to: .canceling) { send(.cancel(self, resumeData: nil)) }
    }

    /// Cancels the task, keeping its bytes, and hands `completionHandler` resume data for
    /// ``ResumableURLSession/downloadTask(withResumeData:)`` — here or in another process, even
    /// after a reboot. The data is `nil` only when the download cannot be resumed: bytes arrived
    /// but the server gave no validator (`ETag` or `Last-Modified`) to resume them safely, the
    /// task never started, or it had already completed. The handler runs on the delegate queue.
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        if move(from: [.running, .suspended], to: .canceling) {
            send(.cancel(self, resumeData: completionHandler))
        } else {
            send(.deliver { completionHandler(nil) })
        }
    }

    /// Cancels the task, keeping its bytes, and returns resume data (see
    /// ``cancel(byProducingResumeData:)``).
    public func cancelByProducingResumeData() async -> Data? {
        await withCheckedContinuation { continuation in
            cancel(byProducingResumeData: { continuation.resume(returning: $0) })
        }
    }

    /// Moves the task to `next` when it is in one of `states`; says whether it moved (the public
    /// methods act only on a change, so calling one twice does nothing the second time).
    private func move(from states: [State], to next: State) -> Bool {
        status.withLock { status in
            guard states.contains(status.state) else { return false }
            status.state = next
            return true
        }
    }

    /// The URL the task downloads, when known.
    var url: URL? { originalRequest?.url }

    public var description: String {
        "ResumableDownloadTask \(taskIdentifier) (\(url?.absoluteString ?? "resume data"), \(state))"
    }
}
