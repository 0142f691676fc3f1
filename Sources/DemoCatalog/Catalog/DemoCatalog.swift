import Foundation
import Logging
import Synchronization

/// An offline, iTunes-compatible catalog: `/search`, `/lookup`, previews and artwork.
///
/// Previews are synthesized on first request (a distinct melody per track, WAV) and served with
/// `ETag`, `Last-Modified` and byte ranges. Its URLs point back at itself on whatever port it got.
///
/// ```swift
/// let catalog = DemoCatalog(logger: logger)
/// try await catalog.run(port: 0) { baseURL in print("catalog at \(baseURL)") }
/// ```
public final class DemoCatalog: Sendable {
    /// The songs it serves.
    public let tracks: [DemoTrack]
    /// The music videos its albums list (never found by a search, never served as previews).
    public let videos: [DemoTrack]
    /// How previews are made.
    public let synthesizer: PreviewSynthesizer
    let logger: Logger
    let startedAt: Date
    private let state = Mutex(State())

    struct State {
        var baseURL: URL?
        var previews: [Int: Preview] = [:]
        var contentVersions: [Int: Int] = [:]
        var faults: [Int: PreviewFaults] = [:]
        var defaultFaults = PreviewFaults()
        /// Answered preview requests, each with its place in the order requests arrived.
        var requests: [(arrival: Int, request: PreviewRequest)] = []
        /// How many preview requests have arrived.
        var arrivals = 0
        var lookups: [[Int]] = []
        var searches: [[String: String]] = []
        var bytesSent: [Int: Int] = [:]
        var artworkRequests = 0
        var previewGenerations: [Int: Int] = [:]
        var staleStatuses: [Int: Int] = [:]
        var holds: [Int: Int] = [:]
    }

    /// A synthesized preview and its validators.
    public struct Preview: Sendable {
        /// The WAV bytes.
        public let data: Data
        /// Strong ETag, quotes included.
        public let etag: String
        /// `Last-Modified` value (an HTTP date).
        public let lastModified: String
    }

    /// Creates a catalog with the built-in songs.
    public init(synthesizer: PreviewSynthesizer = PreviewSynthesizer(), logger: Logger) {
        self.tracks = BuiltInTracks.all
        self.videos = BuiltInTracks.videos
        self.synthesizer = synthesizer
        self.logger = logger
        // Whole seconds: HTTP dates carry no fractions, and If-Range compares them exactly.
        self.startedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }

    /// The URL it answers on, once it is running.
    public var baseURL: URL? { state.withLock { $0.baseURL } }

    func setBaseURL(_ url: URL) { state.withLock { $0.baseURL = url } }

    /// The track with this id, if the catalog has it.
    public func track(id: Int) -> DemoTrack? { tracks.first { $0.id == id } }

    /// The songs of the album with this `collectionId`, in track order (empty when there is none).
    public func album(id: Int) -> [DemoTrack] { tracks.filter { $0.collectionId == id } }

    /// The songs of the artist with this `artistId`, in catalog order (empty when there is none).
    public func songs(ofArtist id: Int) -> [DemoTrack] { tracks.filter { $0.artistId == id } }

    /// The preview the catalog currently serves for a track (synthesized on first use).
    public func preview(for trackId: Int) async -> Preview? {
        guard let track = track(id: trackId), track.hasPreview else { return nil }
        let (cached, version) = state.withLock { ($0.previews[trackId], $0.contentVersions[trackId, default: 0]) }
        if let cached { return cached }
        let data = await synthesizer.preview(trackId: trackId, version: version)
        let modified = startedAt.addingTimeInterval(TimeInterval(version))
        let preview = Preview(
            data: data, etag: "\"\(trackId)-v\(version)-\(data.count)\"", lastModified: HTTPDate.format(modified))
        return state.withLock { state in
            // Another request may have made it meanwhile, or the content changed: keep what is current.
            if state.contentVersions[trackId, default: 0] != version { return state.previews[trackId] ?? preview }
            if let existing = state.previews[trackId] { return existing }
            state.previews[trackId] = preview
            return preview
        }
    }

    /// Sets the faults injected into one track's preview downloads (`nil`: all tracks).
    public func setFaults(_ faults: PreviewFaults, for trackId: Int? = nil) {
        state.withLock { state in
            if let trackId { state.faults[trackId] = faults } else { state.defaultFaults = faults }
        }
    }

    /// Holds a track's preview bodies at byte `offset` of the file: every answer sends the bytes
    /// before it, then waits there (its connection open) until ``release(_:)``. A test's action
    /// "mid-download" then happens mid-download, however slow the machine.
    public func hold(_ trackId: Int, atByte offset: Int) {
        state.withLock { $0.holds[trackId] = offset }
    }

    /// Lets held answers of a track's preview go on (see ``hold(_:atByte:)``).
    public func release(_ trackId: Int) {
        state.withLock { _ = $0.holds.removeValue(forKey: trackId) }
    }

    /// Where a track's preview bodies stop, while held.
    func holdPoint(of trackId: Int) -> Int? { state.withLock { $0.holds[trackId] } }

    /// Every preview request answered so far, in the order they arrived (a request whose preview
    /// took longer to make is still in its place).
    public var previewRequests: [PreviewRequest] {
        state.withLock { $0.requests.sorted { $0.arrival < $1.arrival }.map(\.request) }
    }

    /// Body bytes actually sent for a track's preview, over all requests.
    public func bytesSent(for trackId: Int) -> Int { state.withLock { $0.bytesSent[trackId, default: 0] } }

    /// Takes the faults for one request, counting down the ones that apply a limited number of times.
    func takeFaults(for trackId: Int) -> PreviewFaults {
        state.withLock { state in
            var faults = state.faults[trackId] ?? state.defaultFaults
            let current = faults
            if faults.unavailableResponses > 0 {
                faults.unavailableResponses -= 1
            } else if let failure = faults.failure, failure.count > 0 {
                faults.failure = failure.count > 1 ? (failure.status, failure.count - 1) : nil
            } else if faults.drops > 0 {
                faults.drops -= 1
            }
            if state.faults[trackId] != nil { state.faults[trackId] = faults } else { state.defaultFaults = faults }
            return current
        }
    }

    /// Takes the next place in the order preview requests arrive.
    func arrive() -> Int {
        state.withLock { state in
            defer { state.arrivals += 1 }
            return state.arrivals
        }
    }

    /// Records an answered request with its place of arrival.
    func record(_ request: PreviewRequest, arrival: Int) { state.withLock { $0.requests.append((arrival, request)) } }

    /// Every lookup call answered so far, oldest first: the ids each asked for, in its order.
    public var lookupRequests: [[Int]] { state.withLock { $0.lookups } }

    func recordLookup(_ ids: [Int]) { state.withLock { $0.lookups.append(ids) } }

    /// Every search received so far, oldest first: its query's parameters as they arrived.
    public var searchRequests: [[String: String]] { state.withLock { $0.searches } }

    func recordSearch(_ query: [String: String]) { state.withLock { $0.searches.append(query) } }

    /// Makes a track's preview URL stale, as a CDN's signed URLs expire: the catalog answers with a
    /// new one (`?g=N`), and the old one is answered `status` (404, or a CDN's 403 or 410) from now on.
    public func expirePreviewURL(of trackId: Int, answering status: Int = 404) {
        state.withLock {
            $0.previewGenerations[trackId, default: 0] += 1
            $0.staleStatuses[trackId] = status
        }
    }

    /// What a track's stale preview URLs are answered.
    func staleStatus(of trackId: Int) -> Int { state.withLock { $0.staleStatuses[trackId] ?? 404 } }

    /// The generation of a track's current preview URL (0 at first).
    func previewGeneration(of trackId: Int) -> Int { state.withLock { $0.previewGenerations[trackId, default: 0] } }

    /// Cover-art requests answered so far.
    public var artworkRequests: Int { state.withLock { $0.artworkRequests } }

    func recordArtworkRequest() { state.withLock { $0.artworkRequests += 1 } }

    func countSent(_ bytes: Int, for trackId: Int) { state.withLock { $0.bytesSent[trackId, default: 0] += bytes } }

    /// Replaces a track's preview with different content (new melody, new ETag and Last-Modified),
    /// as a server whose file changed between two requests would.
    public func changeContent(of trackId: Int) {
        state.withLock { state in
            state.contentVersions[trackId, default: 0] += 1
            state.previews[trackId] = nil
        }
    }
}

/// HTTP dates (RFC 9110 IMF-fixdate).
enum HTTPDate {
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
