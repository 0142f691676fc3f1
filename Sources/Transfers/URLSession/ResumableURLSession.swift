import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Foundation's `URLSession` download API, for Linux, with what Linux's Foundation lacks: resume
/// data that works (validated byte ranges, in another process, after a reboot) and background
/// sessions whose downloads survive the process (a crash-safe journal).
///
/// Code written for Apple's `URLSession` — downloads and data tasks — ports by renaming its types
/// (see <doc:PortingURLSessionDownloadCode>); it runs over the same engine as ``TransferSession``.
///
/// ```swift
/// let configuration = ResumableURLSessionConfiguration.background(withIdentifier: "com.example.songs")
/// let session = ResumableURLSession(configuration: configuration, delegate: self, delegateQueue: nil)
/// let task = session.downloadTask(with: previewURL)
/// task.resume()
/// // later
/// task.cancel { resumeData in saved = resumeData }
/// session.downloadTask(withResumeData: saved!).resume()   // fetches only the rest
/// ```
public final class ResumableURLSession: Sendable {
    /// The queue the delegate is called on (a serial queue of the session's when none was given).
    public let delegateQueue: OperationQueue

    private let settings: ResumableURLSessionConfiguration
    private let delegateBox: DelegateBox
    private let commands: AsyncStream<SessionCommand>.Continuation
    private let nextIdentifier: Mutex<Int>
    private let invalidated = Mutex(false)
    private let description = Mutex<String?>(nil)

    /// Creates a session. It copies the configuration and keeps the delegate (strongly) until it is
    /// invalidated.
    ///
    /// Opening a background session takes its identifier for this process. When another process
    /// owns it, the session is invalid from the start: the delegate's
    /// `urlSession(_:didBecomeInvalidWithError:)` gets a `URLError.backgroundSessionInUseByAnotherProcess`
    /// naming the owner, and every task completes with that error.
    ///
    /// - Parameters:
    ///   - configuration: ``ResumableURLSessionConfiguration/default`` or
    ///     ``ResumableURLSessionConfiguration/background(withIdentifier:)``.
    ///   - delegate: Told about progress, finished files and errors: a ``ResumableDownloadDelegate``
    ///     for download tasks, a ``ResumableDataDelegate`` for data tasks, or both.
    ///   - queue: Where delegate methods run; `nil` for a serial queue of the session's own. Of any
    ///     width: the session's calls run on it one at a time, in order.
    public init(
        configuration: ResumableURLSessionConfiguration, delegate: (any ResumableURLSessionDelegate)?,
        delegateQueue queue: OperationQueue?
    ) {
        let settings = configuration.copy()
        self.settings = settings
        if let queue {
            delegateQueue = queue
        } else {
            delegateQueue = OperationQueue()
            delegateQueue.maxConcurrentOperationCount = 1
            delegateQueue.name = "ResumableURLSession delegate queue"
        }
        delegateBox = DelegateBox(delegate)
        let folders = SessionFolders(stateDirectory: settings.stateDirectory, identifier: settings.identifier)
        nextIdentifier = Mutex(folders.identifierMark() + 1)
        let (stream, continuation) = AsyncStream<SessionCommand>.makeStream()
        commands = continuation
        let core = SessionCore(
            configuration: settings, folders: folders, delegate: delegateBox, queue: delegateQueue,
            send: { continuation.yield($0) })
        Task { await core.run(session: self, commands: stream) }
    }

    /// Creates a session with the default configuration and no delegate (for the async methods).
    public convenience init(configuration: ResumableURLSessionConfiguration = .default) {
        self.init(configuration: configuration, delegate: nil, delegateQueue: nil)
    }

    /// A copy of the session's configuration.
    public var configuration: ResumableURLSessionConfiguration { settings.copy() }

    /// The delegate, until the session is invalidated.
    public var delegate: (any ResumableURLSessionDelegate)? { delegateBox.delegate }

    /// A label of the app's for the session.
    public var sessionDescription: String? {
        get { description.withLock { $0 } }
        set { description.withLock { $0 = newValue } }
    }

    /// A task that downloads `url`. It starts suspended: call ``ResumableDownloadTask/resume()``.
    public func downloadTask(with url: URL) -> ResumableDownloadTask {
        downloadTask(with: URLRequest(url: url))
    }

    /// A task that downloads what `request` names, with its header fields. Only `GET` requests
    /// without a body can be downloaded (others complete with `URLError.unsupportedURL`).
    public func downloadTask(with request: URLRequest) -> ResumableDownloadTask {
        makeTask(.request(request), originalRequest: request, completion: nil)
    }

    /// A task that continues a download from resume data (from
    /// ``ResumableDownloadTask/cancel(byProducingResumeData:)`` or a failed task's
    /// `URLError.downloadTaskResumeData`), here or in another process.
    ///
    /// Only the missing bytes are fetched, with `Range` and `If-Range`; when the resource changed
    /// meanwhile it comes back whole (and `didResumeAtOffset` says 0). When the partial file is gone
    /// the download starts over from the URL the data names. Data that is not resume data, is cut
    /// short, comes from a newer version or names files outside ``ResumableURLSessionConfiguration/stateDirectory``
    /// gives a task that completes with `URLError.cannotDecodeRawData` saying which.
    public func downloadTask(withResumeData resumeData: Data) -> ResumableDownloadTask {
        makeTask(.resumeData(resumeData), originalRequest: Self.originalRequest(in: resumeData), completion: nil)
    }

    /// The request resume data continues, if the data can be read.
    static func originalRequest(in resumeData: Data) -> URLRequest? {
        (try? ResumeData(encoded: resumeData)).map { data in
            var request = URLRequest(url: data.url)
            for (name, value) in data.headers ?? [:] { request.setValue(value, forHTTPHeaderField: name) }
            return request
        }
    }

    /// Hands `completionHandler` every task that has not completed (on the delegate queue).
    public func getAllTasks(completionHandler: @escaping @Sendable ([ResumableDownloadTask]) -> Void) {
        commands.yield(.allTasks { _, downloads in completionHandler(downloads) })
    }

    /// Every task that has not completed; for a relaunched background session, the tasks it took
    /// up again (with their identifiers, requests and descriptions).
    public var allTasks: [ResumableDownloadTask] {
        get async { await withCheckedContinuation { continuation in getAllTasks { continuation.resume(returning: $0) } } }
    }

    /// Hands `completionHandler` the data tasks, the upload tasks and the download tasks that have
    /// not completed (on the delegate queue), as Foundation's does.
    public func getTasksWithCompletionHandler(
        _ completionHandler: @escaping @Sendable ([ResumableDataTask], [ResumableUploadTask], [ResumableDownloadTask]) -> Void
    ) {
        commands.yield(
            .allTasks { data, downloads in
                let uploads = data.compactMap { $0 as? ResumableUploadTask }
                completionHandler(data.filter { !($0 is ResumableUploadTask) }, uploads, downloads)
            })
    }

    /// The data tasks, the upload tasks and the download tasks that have not completed.
    public var tasks: (dataTasks: [ResumableDataTask], uploadTasks: [ResumableUploadTask], downloadTasks: [ResumableDownloadTask])
    {
        get async {
            await withCheckedContinuation { continuation in
                getTasksWithCompletionHandler { continuation.resume(returning: ($0, $1, $2)) }
            }
        }
    }

    /// Lets the tasks finish, then invalidates the session: no new tasks, and
    /// `urlSession(_:didBecomeInvalidWithError:)` with `nil` once the last task completed.
    public func finishTasksAndInvalidate() {
        guard markInvalidated() else { return }
        commands.yield(.invalidate(cancelling: false))
    }

    /// Cancels every task, then invalidates the session. A background session's tasks are
    /// cancelled for good (their partial files deleted).
    public func invalidateAndCancel() {
        guard markInvalidated() else { return }
        commands.yield(.invalidate(cancelling: true))
    }

    // MARK: - Internals

    func makeTask(
        _ origin: ResumableDownloadTask.Origin, originalRequest: URLRequest?,
        completion: (@Sendable (URL?, URLResponse?, (any Error)?) -> Void)?, delegate: (any ResumableURLSessionDelegate)? = nil
    ) -> ResumableDownloadTask {
        let identifier = takeIdentifier()
        let commands = commands
        let task = ResumableDownloadTask(
            identifier: identifier, origin: origin, originalRequest: originalRequest, completion: completion,
            delegate: delegate, send: { commands.yield($0) })
        if invalidated.withLock({ $0 }) {
            // As Foundation's raises for a task made on an invalidated session, but without a crash.
            task.status.withLock {
                $0.state = .completed
                $0.error = URLError.make(.cancelled, "the session was invalidated", url: originalRequest?.url)
            }
        } else {
            commands.yield(.register(task))
        }
        return task
    }

    func makeDataTask(
        _ request: URLRequest, completion: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)?,
        delegate: (any ResumableURLSessionDelegate)? = nil
    ) -> ResumableDataTask {
        let commands = commands
        return register(
            ResumableDataTask(
                identifier: takeIdentifier(), request: request, completion: completion, delegate: delegate,
                send: { commands.yield($0) }))
    }

    func makeUploadTask(
        _ request: URLRequest, body: DataRequestBody, completion: (@Sendable (Data?, URLResponse?, (any Error)?) -> Void)?,
        delegate: (any ResumableURLSessionDelegate)? = nil
    ) -> ResumableUploadTask {
        let commands = commands
        return register(
            ResumableUploadTask(
                identifier: takeIdentifier(), request: request, completion: completion, delegate: delegate, upload: body,
                send: { commands.yield($0) }))
    }

    /// Hands a new data or upload task to the core, or completes it at once when this session
    /// makes none (a background one, or one invalidated).
    private func register<Task: ResumableDataTask>(_ task: Task) -> Task {
        let (url, completion) = (task.originalRequest?.url, task.completion)
        let refusal: URLError? =
            if settings.identifier != nil {
                URLError.make(
                    .unsupportedURL, "a background session makes no data or upload tasks, only download tasks",
                    url: url)
            } else if invalidated.withLock({ $0 }) {
                URLError.make(.cancelled, "the session was invalidated", url: url)
            } else {
                nil
            }
        if let refusal {
            task.status.withLock { ($0.state, $0.error) = (.completed, refusal) }
            // Told as a failed task is, so that code waiting for the end hears of it.
            let box = delegateBox
            commands.yield(
                .deliver { [weak self] in
                    if let completion { return completion(nil, nil, refusal) }
                    guard let self else { return }
                    task.dataDelegate(or: box.delegate)?.urlSession(
                        self, task: task, didCompleteWithError: refusal)
                })
        } else {
            commands.yield(.registerData(task))
        }
        return task
    }

    private func takeIdentifier() -> Int {
        nextIdentifier.withLock { next in
            defer { next += 1 }
            return next
        }
    }

    /// Moves identifiers past those a relaunched session found in its journal.
    func reserveIdentifiers(through highest: Int) {
        nextIdentifier.withLock { $0 = max($0, highest + 1) }
    }

    private func markInvalidated() -> Bool {
        invalidated.withLock { invalidated in
            defer { invalidated = true }
            return !invalidated
        }
    }
}

/// What the public methods ask of a session's core, in the order they were asked.
enum SessionCommand: Sendable {
    case register(ResumableDownloadTask)
    case registerData(ResumableDataTask)
    case startData(ResumableDataTask)
    case cancelData(ResumableDataTask)
    case resume(ResumableDownloadTask)
    case suspend(ResumableDownloadTask)
    case cancel(ResumableDownloadTask, resumeData: (@Sendable (Data?) -> Void)?)
    case describe(ResumableDownloadTask)
    case allTasks(@Sendable ([ResumableDataTask], [ResumableDownloadTask]) -> Void)
    case invalidate(cancelling: Bool)
    /// Run a closure on the delegate queue, in order with the delegate calls.
    case deliver(@Sendable () -> Void)
}

/// Holds the delegate until the session is invalidated; readable from any thread.
final class DelegateBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: (any ResumableURLSessionDelegate)?

    init(_ delegate: (any ResumableURLSessionDelegate)?) { value = delegate }

    var delegate: (any ResumableURLSessionDelegate)? { lock.withLock { value } }

    func set(_ delegate: (any ResumableURLSessionDelegate)?) { lock.withLock { value = delegate } }

    func release() { lock.withLock { value = nil } }
}
