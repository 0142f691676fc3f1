import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ResumableURLSession {
    /// A session for the whole process, as Foundation's `URLSession.shared`: the default
    /// configuration, no delegate (use the completion handlers or the async methods).
    public static let shared = ResumableURLSession(configuration: .default)

    /// A task that asks for `url` (GET) and delivers the answer to the session's
    /// ``ResumableDataDelegate``. It starts suspended: call ``ResumableDataTask/resume()``.
    public func dataTask(with url: URL) -> ResumableDataTask { dataTask(with: URLRequest(url: url)) }

    /// A task that makes `request` (any method; its `httpBody` is sent) and delivers the answer
    /// to the session's ``ResumableDataDelegate``.
    public func dataTask(with request: URLRequest) -> ResumableDataTask {
        makeDataTask(request, completion: nil)
    }

    /// A task that asks for `url` and calls `completionHandler` (on the delegate queue) with the
    /// body, the response and `nil`, or with `nil`, the response if one came, and the error. An
    /// HTTP error status is an answer, not an error: check the response's `statusCode`.
    public func dataTask(
        with url: URL, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> ResumableDataTask {
        dataTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    /// A task that makes `request` and calls `completionHandler` instead of the delegate.
    public func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> ResumableDataTask {
        makeDataTask(request, completion: completionHandler)
    }

    /// Asks for `url` and returns the body and the response.
    ///
    /// - Parameters:
    ///   - url: What to ask for (GET).
    ///   - delegate: Told of this task's response and completion (not of its data, which is
    ///     returned), as Foundation's task delegate is.
    /// - Throws: `URLError` (`.cancelled` when the calling Swift task is cancelled).
    public func data(from url: URL, delegate: (any ResumableURLSessionDelegate)? = nil) async throws -> (Data, URLResponse) {
        try await data(for: URLRequest(url: url), delegate: delegate)
    }

    /// Makes `request` and returns the body and the response; see ``data(from:delegate:)``.
    public func data(for request: URLRequest, delegate: (any ResumableURLSessionDelegate)? = nil) async throws -> (
        Data, URLResponse
    ) {
        try await answer(to: request) { makeDataTask(request, completion: $0, delegate: delegate) }
    }

    /// Runs the task `make` makes with the completion handler it is given, to its answer; the
    /// calling Swift task's cancellation cancels it.
    func answer(
        to request: URLRequest,
        _ make: (@escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> ResumableDataTask
    ) async throws -> (Data, URLResponse) {
        let started = Mutex<ResumableDataTask?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = make { data, response, error in
                    if let error { return continuation.resume(throwing: error) }
                    guard let response else {
                        return continuation.resume(
                            throwing: URLError.make(
                                .badServerResponse, "the request ended without a response", url: request.url))
                    }
                    continuation.resume(returning: (data ?? Data(), response))
                }
                started.withLock { $0 = task }
                task.resume()
                if Task.isCancelled { task.cancel() }
            }
        } onCancel: {
            started.withLock { $0 }?.cancel()
        }
    }

    /// Downloads `url` as ``download(from:)`` does, telling `delegate` (a
    /// ``ResumableDownloadDelegate``) of this task's progress.
    public func download(from url: URL, delegate: (any ResumableURLSessionDelegate)?) async throws -> (URL, URLResponse) {
        try await download(for: URLRequest(url: url), delegate: delegate)
    }

    /// Downloads what `request` names as ``download(for:)`` does, telling `delegate` of its progress.
    public func download(for request: URLRequest, delegate: (any ResumableURLSessionDelegate)?) async throws -> (
        URL, URLResponse
    ) {
        try await download { handler in
            self.makeTask(.request(request), originalRequest: request, completion: handler, delegate: delegate)
        }
    }
}
