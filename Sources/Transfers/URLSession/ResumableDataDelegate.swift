import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a ``ResumableURLSession`` tells its delegate about data tasks: Foundation's
/// `URLSessionDataDelegate` (with `URLSessionTaskDelegate`'s completion), method for method.
///
/// Calls for one task come in order: the response, its data in pieces, then the completion.
public protocol ResumableDataDelegate: ResumableURLSessionDelegate {
    /// The response head arrived. Call `completionHandler` with `.allow` to receive the body or
    /// `.cancel` to end the task (`URLError.cancelled`); the body is not read until it is called.
    /// `.becomeDownload` and `.becomeStream` are not offered: the task ends with
    /// `URLError.unsupportedURL` saying so. The default allows.
    func urlSession(
        _ session: ResumableURLSession, dataTask: ResumableDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void)

    /// A piece of the body, in order (the pieces together are the body).
    func urlSession(_ session: ResumableURLSession, dataTask: ResumableDataTask, didReceive data: Data)

    /// A piece of the request's body went out (an upload's, or a data task's `httpBody`):
    /// `bytesSent` now, `totalBytesSent` so far in this hop (a 307 or 308 sends the body again,
    /// from 0), of `totalBytesExpectedToSend`.
    func urlSession(
        _ session: ResumableURLSession, task: ResumableDataTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64)

    /// The task ended: `error` is `nil` when the whole body arrived (whatever the HTTP status: a
    /// 404's body is a body), else a `URLError`.
    func urlSession(_ session: ResumableURLSession, task: ResumableDataTask, didCompleteWithError error: (any Error)?)

    /// The server asks for credentials (a 401 with an HTTP Basic or Digest challenge), as
    /// Foundation's task-level challenge. Call `completionHandler` with `.useCredential` and a
    /// credential to send the request again with it; `.performDefaultHandling` to use the
    /// configuration's `urlCredentialStorage` (on the first challenge of a protection space only);
    /// `.rejectProtectionSpace`, or `.useCredential` with `nil`, to take the 401 as the answer;
    /// `.cancelAuthenticationChallenge` to end the task with `URLError.cancelled`.
    /// `previousFailureCount` counts the answers this task already gave for the protection space.
    /// Asked of the task's delegate, else the session's, even for a task with a completion
    /// handler. The default performs default handling.
    func urlSession(
        _ session: ResumableURLSession, task: ResumableDataTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void)

    /// A redirect (`response`, a 3xx) is about to be followed to `request`'s URL. Call
    /// `completionHandler` with `request` to follow it, or `nil` to end the task with the 3xx
    /// itself as its response and body. A different request is followed as the server asked
    /// (its changes are not applied). Asked of the task's delegate, else the session's, even
    /// for a task with a completion handler. The default follows.
    func urlSession(
        _ session: ResumableURLSession, task: ResumableDataTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void)
}

extension ResumableDataDelegate {
    public func urlSession(
        _ session: ResumableURLSession, dataTask: ResumableDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) { completionHandler(.allow) }

    public func urlSession(_ session: ResumableURLSession, dataTask: ResumableDataTask, didReceive data: Data) {}

    public func urlSession(
        _ session: ResumableURLSession, task: ResumableDataTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {}

    public func urlSession(_ session: ResumableURLSession, task: ResumableDataTask, didCompleteWithError error: (any Error)?) {}

    public func urlSession(
        _ session: ResumableURLSession, task: ResumableDataTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) { completionHandler(.performDefaultHandling, nil) }

    public func urlSession(
        _ session: ResumableURLSession, task: ResumableDataTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) { completionHandler(request) }
}
