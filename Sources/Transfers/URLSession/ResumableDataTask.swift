import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request whose answer comes in memory, in a ``ResumableURLSession``: Foundation's
/// `URLSessionDataTask` (the tutorial's search), over the same connections as the session's downloads.
///
/// A task starts suspended; ``resume()`` starts it. Its properties can be read from any thread.
/// A background session refuses data tasks, as Apple's does: such a task is completed from the
/// start, with `URLError.unsupportedURL` saying why.
// Unchecked only because the class is not final (``ResumableUploadTask`` is one): its state is
// constants and a `Mutex`.
public class ResumableDataTask: @unchecked Sendable, CustomStringConvertible {
    /// Foundation's task states: `.running`, `.suspended`, `.canceling`, `.completed`.
    public typealias State = URLSessionTask.State

    struct Status: Sendable, CountsSuspensions {
        var state: State = .suspended
        var response: URLResponse?
        var error: (any Error)?
        var received: Int64 = 0
        var expected: Int64 = -1
        var sent: Int64 = 0
        var expectedToSend: Int64 = 0
        var clientExpects: Int64 = -1
        var taskDescription: String?
        var suspendCount = 1
        var started = false
        /// The body's reader, waiting for ``resume()`` while the task is suspended.
        var parked: CheckedContinuation<Void, Never>?
    }

    /// Identifies the task within its session.
    public let taskIdentifier: Int
    /// The request the task was made with.
    public let originalRequest: URLRequest?
    /// The task's progress: `totalUnitCount` is the body's announced size, `completedUnitCount` the bytes so far.
    public let progress: Progress

    let status: Mutex<Status>
    /// Set when a completion handler replaces the delegate's calls.
    let completion: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)?
    /// An upload task's body (a data task sends its request's `httpBody`).
    let upload: DataRequestBody?
    private let taskDelegate: DelegateBox
    private let send: @Sendable (SessionCommand) -> Void

    init(
        identifier: Int, request: URLRequest, completion: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)?,
        delegate: (any ResumableURLSessionDelegate)? = nil, upload: DataRequestBody? = nil,
        send: @escaping @Sendable (SessionCommand) -> Void
    ) {
        taskIdentifier = identifier
        originalRequest = request
        status = Mutex(Status())
        self.completion = completion
        self.upload = upload
        taskDelegate = DelegateBox(delegate)
        self.send = send
        progress = Progress(totalUnitCount: -1)
    }

    /// The request being made: the original one (redirects are followed inside the session).
    public var currentRequest: URLRequest? { originalRequest }
    /// The response head, once it arrived.
    public var response: URLResponse? { status.withLock { $0.response } }
    /// Why the task ended, if it failed or was cancelled.
    public var error: (any Error)? { status.withLock { $0.error } }
    /// Where the task is in its life.
    public var state: State { status.withLock { $0.state } }
    /// Body bytes received so far.
    public var countOfBytesReceived: Int64 { status.withLock { $0.received } }
    /// The body's announced size (`Content-Length`), or -1.
    public var countOfBytesExpectedToReceive: Int64 { status.withLock { $0.expected } }
    /// Body bytes sent so far (an upload's, or the request's `httpBody`), in the current hop.
    public var countOfBytesSent: Int64 { status.withLock { $0.sent } }
    /// The size of the body to send (0 when there is none).
    public var countOfBytesExpectedToSend: Int64 { status.withLock { $0.expectedToSend } }
    /// The size the app expects (-1 by default): kept for the app to read back.
    public var countOfBytesClientExpectsToReceive: Int64 {
        get { status.withLock { $0.clientExpects } }
        set { status.withLock { $0.clientExpects = newValue } }
    }
    /// A label of the app's.
    public var taskDescription: String? {
        get { status.withLock { $0.taskDescription } }
        set { status.withLock { $0.taskDescription = newValue } }
    }
    /// The task's own delegate (from ``ResumableURLSession/data(for:delegate:)``, or set before
    /// ``resume()``): told of the task's calls before the session's delegate, which gets those
    /// of kinds this one is not (a task delegate that is no ``ResumableDataDelegate`` leaves
    /// the data calls to the session's). `nil` for most tasks.
    public var delegate: (any ResumableURLSessionDelegate)? {
        get { taskDelegate.delegate }
        set { taskDelegate.set(newValue) }
    }

    /// Starts the task, or lets its body flow again after ``suspend()`` (suspensions nest, as
    /// corelibs counts them). Does nothing once it is cancelled or completed.
    public func resume() {
        let (starts, parked) = status.withLock { status -> (Bool, CheckedContinuation<Void, Never>?) in
            guard status.countResume() else { return (false, nil) }
            defer { (status.parked, status.started) = (nil, true) }
            return (!status.started, status.parked)
        }
        parked?.resume()
        if starts { send(.startData(self)) }
    }

    /// Stops reading the body (the server is held back, not dropped) until ``resume()``.
    public func suspend() {
        _ = status.withLock { $0.countSuspend() }
    }

    /// Cancels the task: it completes with `URLError.cancelled`.
    public func cancel() {
        let parked = status.withLock { status -> CheckedContinuation<Void, Never>?? in
            guard status.state == .running || status.state == .suspended else { return nil }
            status.state = .canceling
            defer { status.parked = nil }
            return .some(status.parked)
        }
        guard let parked else { return }
        parked?.resume()
        send(.cancelData(self))
    }

    /// Whom the task's data calls go to: its own delegate, else the session's, when it is a
    /// ``ResumableDataDelegate``.
    func dataDelegate(or sessionDelegate: (any ResumableURLSessionDelegate)?) -> (any ResumableDataDelegate)? {
        (delegate as? any ResumableDataDelegate) ?? (sessionDelegate as? any ResumableDataDelegate)
    }

    /// Waits while the task is suspended (the body's reader, between pieces).
    func waitWhileSuspended() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = status.withLock { status -> Bool in
                guard status.state == .suspended else { return false }
                status.parked = continuation
                return true
            }
            if !waits { continuation.resume() }
        }
    }

    public var description: String {
        "\(type(of: self)) \(taskIdentifier) (\(originalRequest?.url?.absoluteString ?? "no URL"), \(state))"
    }
}

/// A data task that sends a body given apart from its request, from memory or from a file (read
/// as it is sent, and again for a 307 or 308): Foundation's `URLSessionUploadTask`. The session's
/// ``ResumableDataDelegate`` hears of it as of a data task, and of the body going out through
/// ``ResumableDataDelegate/urlSession(_:task:didSendBodyData:totalBytesSent:totalBytesExpectedToSend:)``.
/// Uploads do not resume: a failed one is made again.
public final class ResumableUploadTask: ResumableDataTask, @unchecked Sendable {}
