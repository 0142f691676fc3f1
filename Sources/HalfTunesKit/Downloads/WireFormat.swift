import Foundation
import ITunesSearch

// The local API's JSON: what `halftunes serve` sends and both the page and the other `halftunes`
// commands read. One definition for both sides, so they cannot drift apart.

/// A track as the API describes it: catalog data merged with its download state.
public struct TrackItem: Codable, Sendable {
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

    /// A track and its status (`nil`: neither downloaded nor downloading).
    public init(_ track: Track, status: DownloadStatus?) {
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

    /// A track's status.
    public init(_ status: DownloadStatus) { self.init(status.track, status: status) }

    /// The status it describes (`none` reads as queued).
    public var status: DownloadStatus {
        DownloadStatus(
            track: Track(id: id, name: name, artist: artist, album: album, artworkURL: artworkURL, durationMs: durationMs),
            state: DownloadState(rawValue: state) ?? .queued, receivedBytes: receivedBytes, expectedBytes: expectedBytes,
            failure: failure, file: file.map { URL(fileURLWithPath: $0) })
    }
}

/// One live event, as the API's Server-Sent Events carry it.
public struct EventItem: Codable, Sendable {
    var type: String
    var id: Int
    var state: String?
    var receivedBytes: Int64?
    var expectedBytes: Int64?
    var reason: String?
    var file: String?

    /// The wire form of an event.
    public init(_ event: DownloadEvent) {
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

    /// The event it describes; `nil` for one this version does not know.
    public var event: DownloadEvent? {
        if type == "progress" { return .progress(trackID: id, received: receivedBytes ?? 0, expected: expectedBytes) }
        switch state {
        case "downloaded":
            guard let file else { return .stateChanged(trackID: id, state: .downloaded) }
            return .completed(trackID: id, file: URL(fileURLWithPath: file))
        case "failed": return .failed(trackID: id, reason: reason ?? "unknown error")
        case "none": return .removed(trackID: id)
        case let state?: return DownloadState(rawValue: state).map { .stateChanged(trackID: id, state: $0) }
        case nil: return nil
        }
    }
}
