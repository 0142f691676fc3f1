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

    /// The task ended: `error` is `nil` when the whole body arrived (whatever the HTTP status: a
    /// 404's body is a body), else a `URLError`.
    func urlSession(_ session: ResumableURLSession, task: ResumableDataTask, didCompleteWithError error: (any Error)?)
}

extension ResumableDataDelegate {
    public func urlSession(
        _ session: ResumableURLSession, dataTask: ResumableDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) { completionHandler(.allow) }

    public func urlSession(_ session: ResumableURLSession, dataTask: ResumableDataTask, didReceive data: Data) {}

    public func urlSession(_ session: ResumableURLSession, task: ResumableDataTask, didCompleteWithError error: (any Error)?) {}
}
