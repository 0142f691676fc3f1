import Foundation

/// One download event on the wire: a line of `--json` NDJSON, the data of a Server-Sent Event.
///
/// ```json
/// {"event":"progress","expectedBytes":1323044,"id":1001,"receivedBytes":262144,"state":"downloading","v":1}
/// {"event":"state","id":1001,"state":"paused","v":1}
/// {"event":"completed","file":"/home/me/.local/share/halftunes/library/Artist - Title [1001].wav","id":1001,"state":"downloaded","v":1}
/// {"event":"completed","file":"/home/me/…/Artist - Title [1002].m4a","id":1002,"state":"downloaded","v":1,"warning":"kept as downloaded, without tags: neither an MP4/M4A nor a WAV file"}
/// {"event":"retrying","id":1001,"reason":"the server answered HTTP 503","retryAfter":2.5,"state":"downloading","v":1}
/// {"event":"failed","id":1001,"reason":"the server answered HTTP 404 (not found) for …","state":"failed","v":1}
/// {"event":"removed","id":1001,"state":"notDownloaded","v":1}
/// {"dropped":1025,"event":"reload","v":1}
/// ```
///
/// `reload` is the last event of a listener that fell too far behind: it lost `dropped` events
/// and its stream ends; it reads the listing again and subscribes anew. It alone has no `id`
/// and no `state`. `retrying` says an attempt failed in a way worth retrying: the download stays
/// downloading and tries again `retryAfter` seconds later (`reason`: what failed).
public struct WireEvent: Codable, Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Codable, Sendable, Hashable {
        case progress, state, retrying, completed, failed, removed, reload
    }

    public var v = wireVersion
    public var event: Kind
    /// The track id (absent from `reload`).
    public var id: Int?
    /// The download's state after the event (absent from `reload`).
    public var state: DownloadState?
    public var receivedBytes: Int64?
    public var expectedBytes: Int64?
    /// Why it failed (`failed`), or why an attempt did (`retrying`).
    public var reason: String?
    /// Seconds until the next attempt (`retrying`).
    public var retryAfter: Double?
    /// The library file (`completed`).
    public var file: String?
    /// How many events a listener lost (`reload`).
    public var dropped: Int?
    /// Why the file was kept without tags (`completed`, when it was).
    public var warning: String?

    /// The wire form of an event.
    public init(_ event: DownloadEvent) {
        id = event.trackID
        switch event {
        case .progress(_, let received, let expected):
            self.event = .progress
            state = .downloading
            receivedBytes = received
            expectedBytes = expected
        case .stateChanged(_, let state):
            self.event = .state
            self.state = state
        case .completed(_, let file, let warning):
            self.event = .completed
            state = .downloaded
            self.file = file.path
            self.warning = warning
        case .retrying(_, let reason, let delay):
            self.event = .retrying
            state = .downloading
            self.reason = reason
            retryAfter = delay.inSeconds
        case .failed(_, let reason):
            self.event = .failed
            state = .failed
            self.reason = reason
        case .removed:
            self.event = .removed
            state = .notDownloaded
        case .fellBehind(let dropped):
            self.event = .reload
            self.dropped = dropped
        }
    }

    /// The event it describes.
    public var downloadEvent: DownloadEvent {
        let id = id ?? 0
        return switch event {
        case .progress: .progress(trackID: id, received: receivedBytes ?? 0, expected: expectedBytes)
        case .state: .stateChanged(trackID: id, state: state ?? .notDownloaded)
        case .completed: .completed(trackID: id, file: URL(filePath: file ?? "", directoryHint: .notDirectory), warning: warning)
        case .retrying: .retrying(trackID: id, reason: reason ?? "unknown error", delay: .seconds(retryAfter ?? 0))
        case .failed: .failed(trackID: id, reason: reason ?? "unknown error")
        case .removed: .removed(trackID: id)
        case .reload: .fellBehind(dropped: dropped ?? 0)
        }
    }
}

/// The encoder of every wire document: sorted keys, slashes as they are.
public enum WireEncoding {
    /// Encodes a document as one line of JSON.
    public static func line(_ value: some Encodable) throws -> String {
        String(decoding: try data(value), as: UTF8.self)
    }

    /// Encodes a document. Listings, search results and download documents, which come in
    /// hundreds, are written by ``WireWriter`` (the same bytes).
    public static func data(_ value: some Encodable) throws -> Data {
        var writer = WireWriter()
        switch value {
        case let listing as Listing: writer.write(listing)
        // An album's or an artist's header is JSONEncoder's to write (a listing of at most 200).
        case let results as SearchResults where results.album == nil && results.artist == nil: writer.write(results)
        case let document as DownloadDocument: writer.write(document)
        default: return try encoderData(value)
        }
        return Data(writer.bytes)
    }

    /// Encodes a document with `JSONEncoder`: the reference ``WireWriter`` is held to.
    static func encoderData(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
