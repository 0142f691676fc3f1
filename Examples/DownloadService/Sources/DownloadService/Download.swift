import Foundation
import Transfers

/// One track's download as the app sees it: the tutorial's `Download` model.
public final class Download: @unchecked Sendable {
    /// Whether bytes are arriving (false while paused).
    public var isDownloading = false
    /// Fraction done, 0…1.
    public var progress: Float = 0
    /// What `cancel(byProducingResumeData:)` gave when the download was paused.
    public var resumeData: Data?
    /// The session's task for it.
    public var task: ResumableDownloadTask?
    /// The track.
    public var track: Track

    /// A download of `track`, not started.
    public init(track: Track) { self.track = track }
}
