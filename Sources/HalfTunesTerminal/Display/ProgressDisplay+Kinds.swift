import HalfTunesKit

extension ProgressDisplay {
    /// A status's row: a download that has received nothing yet counts with the queued ones, as
    /// its `stateChanged` does (it may still wait for a connection).
    static func kind(of status: DownloadStatus) -> ProgressLayout.Kind {
        isStarting(status) ? .queued : kind(of: status.state)
    }

    /// Whether a download has taken a slot but received nothing, its size not known yet.
    static func isStarting(_ status: DownloadStatus) -> Bool {
        status.state == .downloading && status.receivedBytes == 0 && status.expectedBytes == nil
    }

    static func kind(of state: DownloadState) -> ProgressLayout.Kind {
        switch state {
        case .downloading: .downloading
        case .paused: .paused
        case .queued: .queued
        case .notDownloaded, .failed, .downloaded: .other
        }
    }
}

/// A line printed once, above the rows redrawn in place: words, or words that end in a file's path
/// (and a note after it). Fitted to the window, the path gives way first, its folders from the
/// left ("…/library/Artist - Title [1001].m4a"), the file's name last.
struct SummaryLine {
    var head: String
    var path: String?
    var tail = ""

    /// The line, fitted to a window `width` columns wide.
    func rendered(width: Int) -> String {
        guard let path else { return ProgressLine.status(head, width: width) }
        return ProgressLine.status(
            head + DisplayWidth.fittingPath(path, in: width - 1 - DisplayWidth.of(head + tail)) + tail, width: width)
    }
}
