import Foundation
import ITunesSearch
import TransferEngine

/// Where a track's download stands, as the app shows it.
public enum DownloadState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Never downloaded (or cancelled, or removed from the library).
    case notDownloaded
    /// Waiting for a free slot.
    case queued
    /// Receiving bytes.
    case downloading
    /// Paused by the user; resumable.
    case paused
    /// Stopped by an error (see the reason); resumable unless the error was permanent.
    case failed
    /// In the library.
    case downloaded
}

/// A track's download: what the list and the web page show.
public struct DownloadStatus: Sendable, Hashable, Codable {
    /// The track.
    public var track: Track
    /// Its state.
    public var state: DownloadState
    /// Bytes received so far.
    public var receivedBytes: Int64
    /// The file's full size, when known.
    public var expectedBytes: Int64?
    /// Why it failed, when it did.
    public var failure: String?
    /// The library file, once downloaded.
    public var file: URL?
    /// Why a downloaded file was kept without tags, when it was.
    public var warning: String?

    /// The track id.
    public var trackID: Int { track.id }

    enum CodingKeys: String, CodingKey { case track, state, receivedBytes, expectedBytes, failure, file, warning }

    /// Creates a status.
    public init(
        track: Track, state: DownloadState, receivedBytes: Int64, expectedBytes: Int64?, failure: String?, file: URL?,
        warning: String? = nil
    ) {
        self.track = track
        self.state = state
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.failure = failure
        self.file = file
        self.warning = warning
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        track = try c.decode(Track.self, forKey: .track)
        state = try c.decode(DownloadState.self, forKey: .state)
        receivedBytes = try c.decode(Int64.self, forKey: .receivedBytes)
        expectedBytes = try c.decodeIfPresent(Int64.self, forKey: .expectedBytes)
        failure = try c.decodeIfPresent(String.self, forKey: .failure)
        file = try c.decodeIfPresent(String.self, forKey: .file).map { URL(filePath: $0, directoryHint: .notDirectory) }
        warning = try c.decodeIfPresent(String.self, forKey: .warning)
    }

    /// Encodes the file as a plain path, the way a script wants it.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(track, forKey: .track)
        try c.encode(state, forKey: .state)
        try c.encode(receivedBytes, forKey: .receivedBytes)
        try c.encode(expectedBytes, forKey: .expectedBytes)
        try c.encode(failure, forKey: .failure)
        try c.encode(file?.path, forKey: .file)
        try c.encodeIfPresent(warning, forKey: .warning)
    }
}

/// Something that happened to a track's download.
public enum DownloadEvent: Sendable, Hashable {
    /// Bytes arrived (about ten a second at most).
    case progress(trackID: Int, received: Int64, expected: Int64?)
    /// The download moved to a new state.
    case stateChanged(trackID: Int, state: DownloadState)
    /// The file is in the library; `warning` says why it was kept without tags, when it was.
    case completed(trackID: Int, file: URL, warning: String? = nil)
    /// An attempt failed in a way worth retrying; the download tries again after `delay`
    /// (`reason` says what failed). It stays downloading meanwhile.
    case retrying(trackID: Int, reason: String, delay: Duration)
    /// The download failed.
    case failed(trackID: Int, reason: String)
    /// The download was cancelled, or the track removed from the library.
    case removed(trackID: Int)
    /// The listener fell too far behind: `dropped` events never reached it, and its stream ends
    /// after this one. Read the listing again and subscribe anew.
    case fellBehind(dropped: Int)

    /// The track concerned (`nil` for ``fellBehind(dropped:)``).
    public var trackID: Int? {
        switch self {
        case .progress(let id, _, _), .stateChanged(let id, _), .completed(let id, _, _), .failed(let id, _), .removed(let id),
            .retrying(let id, _, _):
            id
        case .fellBehind: nil
        }
    }

    /// How a listener that does not keep up is bounded: at most `limit` undelivered events;
    /// progress is merged (the latest per track wins); state changes are never dropped or merged,
    /// until the limit, when the listener gets ``fellBehind(dropped:)`` and its stream ends.
    public static func listenerBound(limit: Int = 1024) -> EventHub<DownloadEvent>.Bound {
        EventHub.Bound(
            limit: limit, subject: { $0.trackID },
            isReplaceable: { if case .progress = $0 { true } else { false } },
            overflow: { .fellBehind(dropped: $0) })
    }
}

/// What a transfer's tag holds: the track it downloads, as JSON — the same JSON the library
/// stores for it, so filing the download encodes nothing again (``trackJSON(_:)``) — and, for a
/// download begun with tagging off (`--no-tags`), that choice: `{"track": …, "tags": false}`, so
/// that whichever process finishes it keeps it as the server sent it.
struct DownloadTag {
    var track: Track
    /// Whether the download's last step writes the track's tags into its file.
    var writesTags = true

    /// The tag's text.
    var encoded: String {
        // A Track always encodes (its fields are plain values).
        let json = String(decoding: (try? JSONEncoder().encode(track)) ?? Data("{}".utf8), as: UTF8.self)
        return writesTags ? json : #"{"track":"# + json + #","tags":false}"#
    }

    init(track: Track, writesTags: Bool = true) { (self.track, self.writesTags) = (track, writesTags) }

    /// The track of a tag, in either form: the track's JSON, or `{"track": …}` (with tagging's
    /// choice; also the form of journals written by HalfTunes 0.1).
    init?(_ tag: String?) {
        guard let tag else { return nil }
        if let wrapped = tag.hasPrefix(#"{"track":"#) ? try? JSONDecoder().decode(Wrapped.self, from: Data(tag.utf8)) : nil {
            (track, writesTags) = (wrapped.track, wrapped.tags ?? true)
        } else if let track = try? JSONDecoder().decode(Track.self, from: Data(tag.utf8)) {
            self.track = track
        } else {
            return nil
        }
    }

    /// The track's JSON in a tag of the plain form, `nil` for the wrapped one.
    static func trackJSON(_ tag: String?) -> String? {
        guard let tag, !tag.hasPrefix(#"{"track":"#) else { return nil }
        return tag
    }

    private struct Wrapped: Decodable {
        var track: Track
        var tags: Bool?
    }
}
