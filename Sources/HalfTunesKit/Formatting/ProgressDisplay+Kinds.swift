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
