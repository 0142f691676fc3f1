import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ResumableURLSession {
    /// A task that downloads `url` and calls `completionHandler` (on the delegate queue) instead
    /// of the delegate's finish and complete methods. The file exists until the handler returns.
    public func downloadTask(
        with url: URL, completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> ResumableDownloadTask {
        downloadTask(with: URLRequest(url: url), completionHandler: completionHandler)
    }

    /// A task that downloads `request` and calls `completionHandler` instead of the delegate.
    public func downloadTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> ResumableDownloadTask {
        makeTask(.request(request), originalRequest: request, completion: completionHandler)
    }

    /// A task that continues from resume data and calls `completionHandler` instead of the delegate.
    public func downloadTask(
        withResumeData resumeData: Data, completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> ResumableDownloadTask {
        makeTask(.resumeData(resumeData), originalRequest: Self.originalRequest(in: resumeData), completion: completionHandler)
    }

    /// Downloads `url` and returns the file (in the temporary folder; move it, it is yours) and
    /// the response.
    ///
    /// Cancelling the calling Swift task cancels the download and throws `URLError.cancelled`
    /// whose `URLError.downloadTaskResumeData` continues it later.
    public func download(from url: URL) async throws -> (URL, URLResponse) {
        try await download { handler in self.downloadTask(with: url, completionHandler: handler) }
    }

    /// Downloads what `request` names; see ``download(from:)``.
    public func download(for request: URLRequest) async throws -> (URL, URLResponse) {
        try await download { handler in self.downloadTask(with: request, completionHandler: handler) }
    }

    /// Continues a download from resume data, fetching only the missing bytes; see ``download(from:)``.
    public func download(resumeFrom resumeData: Data) async throws -> (URL, URLResponse) {
        try await download { handler in self.downloadTask(withResumeData: resumeData, completionHandler: handler) }
    }

    func download(
        _ make: (@escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void) -> ResumableDownloadTask
    ) async throws -> (URL, URLResponse) {
        let started = Mutex<ResumableDownloadTask?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(URL, URLResponse), any Error>) in
                let task = make { location, response, error in
                    if let error { return continuation.resume(throwing: error) }
                    guard let location, let response else {
                        return continuation.resume(
                            throwing: URLError.make(.unknown, "the download ended without a file", url: nil))
                    }
                    // The session removes `location` once this returns: keep the file for the caller.
                    let kept = FileManager.default.temporaryDirectory
                        .appendingPathComponent("ResumableURLSession-\(UUID().uuidString.lowercased()).tmp")
                    do {
                        try FileManager.default.moveItem(at: location, to: kept)
                        continuation.resume(returning: (kept, response))
                    } catch {
                        continuation.resume(
                            throwing: URLError.make(
                                .cannotMoveFile, "cannot keep the downloaded file: \(error)", url: response.url))
                    }
                }
                started.withLock { $0 = task }
                task.resume()
                if Task.isCancelled { task.cancel(byProducingResumeData: { _ in }) }
            }
        } onCancel: {
            started.withLock { $0 }?.cancel(byProducingResumeData: { _ in })
        }
    }
}
