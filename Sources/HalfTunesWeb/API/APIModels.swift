import Foundation
import HalfTunesKit
import ITunesSearch

/// A track as the page sees it: catalog data merged with its download state.
struct TrackItem: Encodable {
    var id: Int
    var name: String
    var artist: String
    var album: String?
    var artworkURL: URL?
    var durationMs: Int?
    var downloadable: Bool
    /// `none`, `queued`, `downloading`, `paused`, `failed` or `downloaded`.
    var state: String
    var receivedBytes: Int64
    var expectedBytes: Int64?
    var failure: String?
    /// The library file, once downloaded (the API is local: this is for the command line).
    var file: String?

    init(_ track: Track, status: DownloadStatus?) {
        id = track.id
        name = track.name
        artist = track.artist
        album = track.album
        artworkURL = track.artworkURL
        durationMs = track.durationMs
        downloadable = track.isDownloadable
        state = status?.state.rawValue ?? "none"
        receivedBytes = status?.receivedBytes ?? 0
        expectedBytes = status?.expectedBytes
        failure = status?.failure
        file = status?.file?.path
    }

    init(_ status: DownloadStatus) { self.init(status.track, status: status) }
}

/// One live event, as sent to the page over Server-Sent Events.
struct EventItem: Encodable {
    var type: String
    var id: Int
    var state: String?
    var receivedBytes: Int64?
    var expectedBytes: Int64?
    var reason: String?
    var file: String?

    init(_ event: DownloadEvent) {
        id = event.trackID
        switch event {
        case .progress(_, let received, let expected):
            type = "progress"
            receivedBytes = received
            expectedBytes = expected
        case .stateChanged(_, let state):
            type = "state"
            self.state = state.rawValue
        case .completed(_, let file):
            type = "state"
            state = DownloadState.downloaded.rawValue
            self.file = file.path
        case .failed(_, let reason):
            type = "state"
            state = DownloadState.failed.rawValue
            self.reason = reason
        case .removed:
            type = "state"
            state = "none"
        }
    }
}
