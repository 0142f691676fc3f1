import Foundation
import Transfers

/// The session's delegate: moves each finished preview into the music folder and keeps the
/// downloads' progress — what the tutorial's view controller did in its `URLSessionDownloadDelegate`
/// extension, with the user interface replaced by `report`.
public final class SongDownloads: NSObject, ResumableDownloadDelegate, @unchecked Sendable {
    /// Something that happened, for whoever shows it.
    public enum Report: Sendable {
        case progress(URL, written: Int64, expected: Int64)
        case resumed(URL, offset: Int64, expected: Int64)
        case saved(URL, file: URL)
        /// The task is over, successfully (after `saved`): the session is done with its files.
        case finished(URL)
        case failed(URL, reason: String, resumeData: Data?)
        /// The download was cancelled (not paused): the service has let it go.
        case cancelled(URL)
        case backgroundEventsDelivered
        case invalid(reason: String)
    }

    /// The service whose downloads these are.
    public let service: DownloadService
    /// Where finished previews go.
    public let musicFolder: URL
    private let report: @Sendable (Report) -> Void

    /// A delegate that files previews into `musicFolder`.
    public init(service: DownloadService, musicFolder: URL, report: @escaping @Sendable (Report) -> Void) {
        self.service = service
        self.musicFolder = musicFolder
        self.report = report
    }

    /// Where a preview is kept: the folder plus the URL's last path component.
    public func localFilePath(for url: URL) -> URL { musicFolder.appendingPathComponent(url.lastPathComponent) }

    public func urlSession(
        _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didFinishDownloadingTo location: URL
    ) {
        guard let sourceURL = downloadTask.originalRequest?.url else { return }
        let download = service.finish(sourceURL)
        let destinationURL = localFilePath(for: sourceURL)
        let fileManager = FileManager.default
        try? fileManager.removeItem(at: destinationURL)
        do {
            try fileManager.createDirectory(at: musicFolder, withIntermediateDirectories: true)
            try fileManager.copyItem(at: location, to: destinationURL)
            download?.track.downloaded = true
            report(.saved(sourceURL, file: destinationURL))
        } catch {
            report(.failed(sourceURL, reason: "could not copy the file to disk: \(error)", resumeData: nil))
        }
    }

    public func urlSession(
        _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        guard let url = downloadTask.originalRequest?.url else { return }
        if let download = service.download(for: url), totalBytesExpectedToWrite > 0 {
            download.progress = Float(totalBytesWritten) / Float(totalBytesExpectedToWrite)
        }
        report(.progress(url, written: totalBytesWritten, expected: totalBytesExpectedToWrite))
    }

    public func urlSession(
        _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64
    ) {
        guard let url = downloadTask.originalRequest?.url else { return }
        report(.resumed(url, offset: fileOffset, expected: expectedTotalBytes))
    }

    public func urlSession(_ session: ResumableURLSession, task: ResumableDownloadTask, didCompleteWithError error: (any Error)?)
    {
        guard let url = task.originalRequest?.url else { return }
        guard let error else { return report(.finished(url)) }
        let urlError = error as? URLError
        if urlError?.code == .cancelled {
            // A pause keeps the download in the service; a cancel has let it go.
            if service.download(for: url) == nil { report(.cancelled(url)) }
            return
        }
        report(.failed(url, reason: error.localizedDescription, resumeData: urlError?.downloadTaskResumeData))
    }

    public func urlSessionDidFinishEvents(forBackgroundURLSession session: ResumableURLSession) {
        report(.backgroundEventsDelivered)
    }

    public func urlSession(_ session: ResumableURLSession, didBecomeInvalidWithError error: (any Error)?) {
        if let error { report(.invalid(reason: error.localizedDescription)) }
    }
}
