import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a ``ResumableURLSession`` tells its delegate about the session itself: Foundation's
/// `URLSessionDelegate`. The root of the delegate protocols, as Apple's tree is:
///
/// | Foundation | Transfers |
/// | --- | --- |
/// | `URLSessionDelegate` | ``ResumableURLSessionDelegate`` |
/// | `URLSessionDownloadDelegate` (with `URLSessionTaskDelegate`'s completion) | ``ResumableDownloadDelegate`` |
/// | `URLSessionDataDelegate` (with `URLSessionTaskDelegate`'s completion) | ``ResumableDataDelegate`` |
///
/// Foundation's `urlSession(_:task:didCompleteWithError:)` takes any `URLSessionTask`; here each
/// task kind has its own (``ResumableDownloadTask`` and ``ResumableDataTask`` share no base class).
/// A delegate adopts the protocols of the tasks it makes. Every method has an empty default. The
/// session calls them one at a time and in order, whatever its delegate queue is (a queue of any
/// width, `OperationQueue.main`), and keeps the delegate until it is invalidated.
public protocol ResumableURLSessionDelegate: AnyObject {
    /// A relaunched background session has delivered the events of every task it found
    /// outstanding. Called once per relaunch that found any.
    func urlSessionDidFinishEvents(forBackgroundURLSession session: ResumableURLSession)

    /// The session is invalid: `nil` after ``ResumableURLSession/finishTasksAndInvalidate()`` or
    /// ``ResumableURLSession/invalidateAndCancel()``, else why it could not be used (another
    /// process owns the background identifier, its folder cannot be written…). The session lets
    /// go of its delegate after this call.
    func urlSession(_ session: ResumableURLSession, didBecomeInvalidWithError error: (any Error)?)
}

extension ResumableURLSessionDelegate {
    public func urlSessionDidFinishEvents(forBackgroundURLSession session: ResumableURLSession) {}

    public func urlSession(_ session: ResumableURLSession, didBecomeInvalidWithError error: (any Error)?) {}
}

/// What a ``ResumableURLSession`` tells its delegate about download tasks: Foundation's
/// `URLSessionDownloadDelegate`, method for method.
public protocol ResumableDownloadDelegate: ResumableURLSessionDelegate {
    /// The download finished: `location` is the file, which exists until this method returns.
    /// Move or copy it before then; the session removes it afterwards.
    func urlSession(
        _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didFinishDownloadingTo location: URL)

    /// Bytes were written. `totalBytesWritten` never goes down (it counts the bytes on disk, from
    /// the resume offset after a resume), and `totalBytesExpectedToWrite` is the resource's full
    /// size, or -1 when the server did not say.
    func urlSession(
        _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64)

    /// A download from resume data (or one taken up again by a relaunched background session)
    /// started writing at `fileOffset`: the bytes kept. 0 means the resource changed (or the
    /// server does not do ranges) and it is being fetched whole.
    func urlSession(
        _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64)

    /// The task ended: `error` is `nil` after a successful download, else a `URLError` (whose
    /// `URLError.downloadTaskResumeData` holds resume data when the download can be resumed).
    func urlSession(_ session: ResumableURLSession, task: ResumableDownloadTask, didCompleteWithError error: (any Error)?)

    /// A redirect (`response`, a 3xx) is about to be followed to `request`'s URL. Call
    /// `completionHandler` with `request` to follow it, or `nil` to refuse it: the 3xx's body is
    /// then the task's file and the 3xx its response, as Apple's, where the configuration's
    /// `deliversHTTPErrorBodies` is `true`; else the task fails with `URLError.badServerResponse`
    /// naming the 3xx. Asked while this process runs the task; a background session's task
    /// that the transfer agent runs after the process ended follows its redirects. The default
    /// follows.
    func urlSession(
        _ session: ResumableURLSession, task: ResumableDownloadTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void)

    /// The server asks for credentials (a 401 with an HTTP Basic or Digest challenge), as
    /// Foundation's task-level challenge, with the same dispositions as a data task's
    /// (``ResumableDataDelegate/urlSession(_:task:didReceive:completionHandler:)``): the
    /// credential is sent on the task's later requests to that origin, never to another a
    /// redirect leads to. Asked while this process runs the task (a background task the transfer
    /// agent runs after the process ended takes the 401). The default performs default handling.
    func urlSession(
        _ session: ResumableURLSession, task: ResumableDownloadTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void)
}

extension ResumableDownloadDelegate {
    public func urlSession(
        _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didFinishDownloadingTo location: URL
    ) {}

    public func urlSession(
        _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {}

    public func urlSession(
        _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64
    ) {}

    public func urlSession(
        _ session: ResumableURLSession, task: ResumableDownloadTask, didCompleteWithError error: (any Error)?
    ) {}

    public func urlSession(
        _ session: ResumableURLSession, task: ResumableDownloadTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) { completionHandler(request) }

    public func urlSession(
        _ session: ResumableURLSession, task: ResumableDownloadTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) { completionHandler(.performDefaultHandling, nil) }
}
