import Foundation
import Transfers

/// Starts, pauses, resumes and cancels track downloads: the tutorial's `DownloadService`, on
/// `ResumableURLSession`, so a pause survives the process and a background session survives a crash.
///
/// Every method may be called from any thread; the downloads are guarded by a lock (the tutorial
/// relied on the main thread instead).
public final class DownloadService: @unchecked Sendable {
    private let lock = NSLock()
    private var downloads: [URL: Download] = [:]
    /// The session the downloads run in (set once, before the first download).
    public var downloadsSession: ResumableURLSession!

    /// A service with no downloads.
    public init() {}

    /// The downloads in flight or paused, by preview URL.
    public var activeDownloads: [URL: Download] { lock.withLock { downloads } }

    /// The download of a preview URL, if any.
    public func download(for url: URL) -> Download? { lock.withLock { downloads[url] } }

    /// Starts downloading a track's preview.
    public func startDownload(_ track: Track) {
        let download = Download(track: track)
        download.task = downloadsSession.downloadTask(with: track.previewURL)
        download.task?.taskDescription = "\(track.artist) — \(track.name)"
        download.task?.resume()
        download.isDownloading = true
        lock.withLock { downloads[track.previewURL] = download }
    }

    /// Pauses a track's download, keeping the resume data; `done` runs once it is kept.
    public func pauseDownload(_ track: Track, done: @escaping @Sendable (Data?) -> Void = { _ in }) {
        guard let download = download(for: track.previewURL), download.isDownloading else { return done(nil) }
        download.task?.cancel(byProducingResumeData: { data in
            download.resumeData = data
            done(data)
        })
        download.isDownloading = false
    }

    /// Resumes a paused download: from its resume data when there is some, else from the start.
    public func resumeDownload(_ track: Track) {
        guard let download = download(for: track.previewURL) else { return }
        if let resumeData = download.resumeData {
            download.task = downloadsSession.downloadTask(withResumeData: resumeData)
        } else {
            download.task = downloadsSession.downloadTask(with: download.track.previewURL)
        }
        download.task?.resume()
        download.isDownloading = true
    }

    /// Resumes a download from resume data kept elsewhere (a file, another process's pause).
    public func resumeDownload(_ track: Track, resumeData: Data) {
        let download = Download(track: track)
        download.resumeData = resumeData
        lock.withLock { downloads[track.previewURL] = download }
        resumeDownload(track)
    }

    /// Cancels a track's download and forgets it.
    public func cancelDownload(_ track: Track) {
        guard let download = download(for: track.previewURL) else { return }
        download.task?.cancel()
        lock.withLock { downloads[track.previewURL] = nil }
    }

    /// Adopts a task a relaunched background session handed back.
    public func adopt(_ task: ResumableDownloadTask, track: Track) {
        let download = Download(track: track)
        download.task = task
        download.isDownloading = task.state == .running
        lock.withLock { downloads[track.previewURL] = download }
    }

    /// Forgets a finished download and returns it.
    @discardableResult
    public func finish(_ url: URL) -> Download? { lock.withLock { downloads.removeValue(forKey: url) } }
}
