import Foundation
import TransferEngine

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ResumableURLSession {
    /// A task that sends `bodyData` with `request` (its method, usually `POST` or `PUT`; its
    /// `httpBody` is ignored) and delivers the answer to the session's ``ResumableDataDelegate``,
    /// with ``ResumableDataDelegate/urlSession(_:task:didSendBodyData:totalBytesSent:totalBytesExpectedToSend:)``
    /// as the body goes out. It starts suspended: call ``ResumableDataTask/resume()``.
    public func uploadTask(with request: URLRequest, from bodyData: Data) -> ResumableUploadTask {
        makeUploadTask(request, body: .bytes(bodyData), completion: nil)
    }

    /// A task that sends the file at `fileURL` with `request`, read as it is sent (a file that
    /// is not there fails the task with `URLError.fileDoesNotExist`, one that cannot be read with
    /// `.noPermissionsToReadFile`).
    public func uploadTask(with request: URLRequest, fromFile fileURL: URL) -> ResumableUploadTask {
        makeUploadTask(request, body: .file(fileURL), completion: nil)
    }

    /// A task that sends `bodyData` (none when `nil`) and calls `completionHandler` instead of
    /// the delegate, as ``dataTask(with:completionHandler:)-(URLRequest,_)`` does.
    public func uploadTask(
        with request: URLRequest, from bodyData: Data?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> ResumableUploadTask {
        makeUploadTask(request, body: .bytes(bodyData ?? Data()), completion: completionHandler)
    }

    /// A task that sends the file at `fileURL` and calls `completionHandler` instead of the delegate.
    public func uploadTask(
        with request: URLRequest, fromFile fileURL: URL,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> ResumableUploadTask {
        makeUploadTask(request, body: .file(fileURL), completion: completionHandler)
    }

    /// Sends `bodyData` with `request` and returns the answer's body and response.
    ///
    /// - Parameter delegate: Told of this task's progress out (`didSendBodyData`), its response
    ///   and completion, as Foundation's task delegate is.
    /// - Throws: `URLError` (`.cancelled` when the calling Swift task is cancelled).
    public func upload(
        for request: URLRequest, from bodyData: Data, delegate: (any ResumableURLSessionDelegate)? = nil
    ) async throws -> (Data, URLResponse) {
        try await answer(to: request) { makeUploadTask(request, body: .bytes(bodyData), completion: $0, delegate: delegate) }
    }

    /// Sends the file at `fileURL` with `request` and returns the answer; see ``upload(for:from:delegate:)``.
    public func upload(
        for request: URLRequest, fromFile fileURL: URL, delegate: (any ResumableURLSessionDelegate)? = nil
    ) async throws -> (Data, URLResponse) {
        try await answer(to: request) { makeUploadTask(request, body: .file(fileURL), completion: $0, delegate: delegate) }
    }
}
