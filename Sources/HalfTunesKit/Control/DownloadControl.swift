import Foundation

/// Everything a front end asks of downloads: the one seam between the command line or the web
/// page and the app.
///
/// Two implementations: ``LocalDownloadControl`` works on this process's own download service
/// (in the agent, or in a command run with `HALFTUNES_AGENT=0`); a remote one (in
/// `HalfTunesWeb`) is a client of the home's agent through its API. A front end picks one once
/// and then only calls this protocol. Every failure is a ``DownloadError``.
public protocol DownloadControl: Sendable {
    /// Who runs the downloads this control starts.
    var owner: DownloadOwner { get }

    /// Searches the catalog; each result carries its download state.
    func search(term: String, limit: Int, country: String) async throws(DownloadError) -> SearchResults
    /// Searches with the catalog's filters too (which field, explicit songs, language, a later page).
    func search(_ request: SearchRequest) async throws(DownloadError) -> SearchResults
    /// An album's songs in disc and track order, each with its download state, the album as the
    /// header (music videos left out); `notFound` when the catalog has no album by that id.
    func album(_ collectionID: Int) async throws(DownloadError) -> SearchResults
    /// An artist's songs, newest first, at most `limit` (1 to 200), the artist as the header;
    /// `notFound` when the catalog has no artist by that id.
    func artist(_ artistID: Int, limit: Int) async throws(DownloadError) -> SearchResults
    /// Starts (or resumes) downloads of tracks by id, looking them up when needed.
    func start(_ trackIDs: [Int]) async throws(DownloadError) -> [DownloadDocument]
    /// Pauses a download, keeping its bytes.
    func pause(_ trackID: Int) async throws(DownloadError) -> DownloadDocument
    /// Resumes a paused or failed download.
    func resume(_ trackID: Int) async throws(DownloadError) -> DownloadDocument
    /// Cancels a download, deleting its bytes.
    func cancel(_ trackID: Int) async throws(DownloadError)
    /// Removes a track from the library, deleting its file.
    func remove(_ trackID: Int) async throws(DownloadError)
    /// Downloads in flight and the library: all of it, a page, or what changed since a cursor.
    func listing(_ query: ListingQuery) async throws(DownloadError) -> Listing
    /// Writes a library track's tags and cover into its file (for files downloaded without them).
    func retag(_ trackID: Int) async throws(DownloadError) -> DownloadDocument
    /// The cap on all downloads together, bytes a second (`nil`: none).
    func bandwidthLimit() async throws(DownloadError) -> Int?
    /// Sets the cap on all downloads together (`nil`: none), for those running too; returns it.
    func setBandwidthLimit(_ bytesPerSecond: Int?) async throws(DownloadError) -> Int?
    /// A downloaded track to play: its library document, whose `file` is set.
    func playTarget(_ trackID: Int) async throws(DownloadError) -> DownloadDocument
    /// A track's bytes from the first, handed to `receive` in order as they arrive — for playing
    /// a download still in progress (a downloaded track is read whole). Returns when the download
    /// has ended or stopped, or when `receive` answers `false`.
    func streamTrack(_ trackID: Int, into receive: @Sendable ([UInt8]) async -> Bool) async throws(DownloadError)
    /// Every download event from now on. Returns once subscribed, so nothing after the call is missed.
    func events() async throws(DownloadError) -> AsyncStream<DownloadEvent>
    /// Every download event from now on, in batches (every event waiting when the listener asks,
    /// in order), for a listener whose work per event has a cost it can share, such as a write
    /// to a terminal. Returns once subscribed, so nothing after the call is missed.
    func eventBatches() async throws(DownloadError) -> AsyncStream<[DownloadEvent]>
    /// Lets go of what the control holds (the session of a local control).
    func close() async
}

extension DownloadControl {
    /// Runs `body` with this control, then closes it (``close()``) however `body` ends.
    public func closing<T>(after body: (Self) async throws -> T) async throws -> T {
        do {
            let result = try await body(self)
            await close()
            return result
        } catch {
            await close()
            throw error
        }
    }

    /// Every download in flight and the whole library.
    public func listing() async throws(DownloadError) -> Listing { try await listing(.all) }

    /// The term, limit and country alone, for a control that knows no filters.
    public func search(_ request: SearchRequest) async throws(DownloadError) -> SearchResults {
        try await search(term: request.term, limit: request.limit, country: request.country)
    }

    /// Refused, for a control that knows no catalog.
    public func album(_ collectionID: Int) async throws(DownloadError) -> SearchResults {
        throw DownloadError(.notFound, "this control has no catalog to look album \(collectionID) up in")
    }

    /// Refused, for a control that knows no catalog.
    public func artist(_ artistID: Int, limit: Int) async throws(DownloadError) -> SearchResults {
        throw DownloadError(.notFound, "this control has no catalog to look artist \(artistID) up in")
    }

    /// No cap, for a control that runs no downloads of its own.
    public func bandwidthLimit() async throws(DownloadError) -> Int? { nil }

    /// Refused, for a control that runs no downloads of its own.
    public func setBandwidthLimit(_ bytesPerSecond: Int?) async throws(DownloadError) -> Int? {
        throw DownloadError(.conflict, "this control runs no downloads to cap")
    }

    /// The events of ``events()``, one to a batch (for a control whose events arrive one by one).
    public func eventBatches() async throws(DownloadError) -> AsyncStream<[DownloadEvent]> {
        let events = try await events()
        let (batches, feed) = AsyncStream<[DownloadEvent]>.makeStream()
        let pump = Task {
            for await event in events { feed.yield([event]) }
            feed.finish()
        }
        feed.onTermination = { _ in pump.cancel() }
        return batches
    }
}

/// Who runs the downloads a ``DownloadControl`` starts.
public enum DownloadOwner: Sendable, Hashable {
    /// This process: they stop (and resume next time) when it ends.
    case thisProcess
    /// The home's agent (`halftunes agent`): they go on when this one ends; this one's Ctrl-C
    /// pauses them, as when they ran here.
    case agent(pid: Int32)
}

extension DownloadError {
    /// Runs `body` (on the caller's actor), turning whatever it throws into a ``DownloadError``.
    public static func catching<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async throws(DownloadError) -> T {
        do { return try await body() } catch { throw DownloadError(error) }
    }
}
