import Foundation
import ITunesSearch
import Logging
import NetworkBasics
import TransferEngine

/// The app's download service: tracks × transfers × library, keyed by track id.
///
/// What the tutorial's DownloadService did, on the resumable, crash-safe ``TransferSession``:
/// finished previews go to the library folder under a safe, unique name, and the library
/// remembers them, so a repeat search shows what is already downloaded.
public actor DownloadService {
    /// Where everything lives.
    public nonisolated let home: HalfTunesHome
    let session: TransferSession
    /// The session's HTTP clients, for the process's catalog calls to share their connections.
    public nonisolated var httpClients: HTTPClientSet { session.httpClients }
    nonisolated let library: LibraryStore
    nonisolated let hub = EventHub<DownloadEvent>(bound: DownloadEvent.listenerBound())
    let logger: Logger
    /// Writes tags and covers into finished downloads (and, for `halftunes tag`, older files).
    let tagger: DownloadTagger
    /// Which transfer downloads which track.
    var transfersByTrack: [Int: TransferID] = [:]
    var tracksByTransfer: [TransferID: Track] = [:]
    /// Completed transfers that could not be filed in the library, with why: listed as failed,
    /// and downloading or resuming their track starts over. Any other completed transfer is on
    /// its way into the library.
    var unfiled: [TransferID: String] = [:]
    /// Awaited before completed downloads are filed (`nil`: nothing), so a test can hold a
    /// download between its completion and its filing.
    var beforeFiling: (@Sendable () async -> Void)?
    private var pump: Task<Void, Never>?
    /// Looks a track up again, past any cache, when its preview URL has gone stale (see
    /// ``setRefresher(_:)``); `nil`: none.
    var refresher: (@Sendable (Int) async -> Track?)?
    /// The tracks looked up again after their preview URL went stale: the stale URL when the
    /// download started again with a fresh one, `nil` when the catalog gave the same URL.
    var staleURLs: [Int: URL?] = [:]

    /// The name of the transfer session in a home's session folder.
    static let sessionIdentifier = "downloads"

    /// The largest preview downloaded, unless the configuration sets a limit of its own. A
    /// 30-second preview is about 1 MB (30 s of 24-bit 192 kHz stereo PCM is 35 MB): a larger
    /// one is a server gone wrong, and fails before it fills the disk.
    public static let maximumPreviewBytes: Int64 = 64 << 20

    /// Opens the app's data in `home`: the transfer session (taking ownership of it) and the library.
    ///
    /// Unfinished downloads resume at once.
    ///
    /// - Parameter tagging: Whether each download's last step writes the track's tags and cover
    ///   into its file (before it goes into the library).
    public static func open(
        home: HalfTunesHome,
        configuration: TransferSessionConfiguration = TransferSessionConfiguration(),
        tagging: TaggingOptions = TaggingOptions(),
        logger: Logger
    ) async throws -> DownloadService {
        if let problem = DownloadError.homeProblem(home) { throw problem }
        if home.isReadOnly { throw DownloadError.readOnlyHome(home) }
        // The library and the session's journal are two databases: they open side by side, each
        // waiting on its own flushes when it is new.
        async let opening = LibraryStore.open(path: home.libraryIndex.path, folder: home.library)
        // Each download keeps the tagging choice it was begun with: downloads left unfinished by
        // a process that tagged are tagged by one started with tagging off too.
        let finishesTagged = tagging.writesTags || Self.hasUnfinishedTagged(home: home)
        let tagger = DownloadTagger(
            options: tagging, fetchesArtwork: tagging.fetchesArtwork || finishesTagged,
            cacheFolder: home.cache.appendingPathComponent("artwork"), trustRoots: configuration.trustRoots,
            proxies: configuration.proxies, logger: logger)
        var configuration = configuration
        // The service reads no response heads (it ignores `.responded`): none are copied for it.
        configuration.reportsResponses = false
        // Previews come from a catalog: one that began on the public internet stays there.
        configuration.keepsPublicTransfersPublic = true
        configuration.maximumFileSize = configuration.maximumFileSize ?? maximumPreviewBytes
        if finishesTagged { configuration.finisher = { download in await tagger.finish(download) } }
        let session = try await TransferSession.open(
            identifier: sessionIdentifier, directory: home.session, configuration: configuration, logger: logger)
        let library: LibraryStore
        do {
            library = try await opening
        } catch {
            await session.close()
            throw error
        }
        let service = DownloadService(home: home, session: session, library: library, tagger: tagger, logger: logger)
        await service.start()
        return service
    }

    private init(home: HalfTunesHome, session: TransferSession, library: LibraryStore, tagger: DownloadTagger, logger: Logger) {
        self.home = home
        self.session = session
        self.library = library
        self.tagger = tagger
        self.logger = logger
    }

    private func start() async {
        let events = session.eventBatches()
        var completed: [(TransferID, URL)] = []
        for transfer in await session.transfers() {
            guard let tag = DownloadTag(transfer.tag) else { continue }
            transfersByTrack[tag.track.id] = transfer.id
            tracksByTransfer[transfer.id] = tag.track
            // Completed while the app was not there to file it (a crash between the two).
            if transfer.state == .completed { completed.append((transfer.id, transfer.destination)) }
        }
        await file(completed)
        // Events come in batches, every one waiting: the downloads completed in a batch go into
        // the library in one commit. After a batch that filed downloads, the next waits a moment,
        // so that files finishing one after another share the library's commits (and the
        // journal's forgets) instead of taking one each; a lone download is filed at once. The
        // pump holds the service only while it handles a batch.
        pump = Task { [weak self] in
            for await batch in events {
                // Not held while it waits: a service let go meanwhile goes at once.
                if await self?.handle(batch) == true { try? await Task.sleep(for: Self.filingSpacing) }
            }
        }
    }

    /// How long the event pump waits after filing downloads before it takes the next events, so
    /// that the next filing carries the downloads finished meanwhile: 2,000 files of 2 KiB took
    /// some 1,400 commits of the library without it, under 300 with it.
    static let filingSpacing = Duration.milliseconds(1)

    /// Sets what is awaited before completed downloads are filed (see ``beforeFiling``).
    func setBeforeFiling(_ hook: (@Sendable () async -> Void)?) { beforeFiling = hook }

    /// A stream of every download event from now on.
    public nonisolated func events() -> AsyncStream<DownloadEvent> { hub.subscribe() }

    /// A stream of every download event from now on, in batches: each element is every event
    /// waiting when the listener asks (at most `limit`, at least one), in order.
    public nonisolated func eventBatches(limit: Int = 256) -> AsyncStream<[DownloadEvent]> {
        hub.subscribeBatches(limit: limit)
    }

    /// Downloads tracks' previews into the library. A track already downloaded, downloading, or
    /// finished and being filed is left as it is; a paused or failed one is resumed; one whose
    /// filing failed starts over.
    ///
    /// - Returns: Each track's status right after the call.
    /// - Throws: ``DownloadError`` when a track has no preview.
    @discardableResult
    public func download(_ tracks: [Track]) async throws -> [DownloadStatus] {
        for track in tracks where !track.isDownloadable {
            throw DownloadError(.badInput, "\"\(track.name)\" (\(track.id)) has no preview to download")
        }
        // One read of the library, one journal commit for the new downloads, one pass for the
        // statuses: a batch of 2,000 costs about what one does, per track.
        let inLibrary = try library.items(ids: tracks.map(\.id))
        var fresh: [Track] = []
        var seen = Set<Int>()
        for track in tracks where inLibrary[track.id] == nil && seen.insert(track.id).inserted {
            if let id = transfersByTrack[track.id], let transfer = await session.transfer(id), unfiled[id] == nil {
                // A completed one is being filed: fetching it again would download it twice.
                if transfer.state != .completed { try await session.resume(id) }
            } else {
                fresh.append(track)
            }
        }
        try await startOver(fresh)
        let statuses = try await statuses(trackIDs: tracks.map(\.id))
        return tracks.compactMap { statuses[$0.id] }
    }

    func begin(_ tracks: [Track]) async throws {
        let starting = tracks.filter { $0.previewURL != nil }
        let requests = starting.map { track in
            let url = track.previewURL!
            let name = LibraryNaming.fileName(for: track, fileExtension: LibraryNaming.fileExtension(previewURL: url))
            let tag = DownloadTag(track: track, writesTags: tagger.writesTags)
            return TransferRequest(url: url, destinationPath: library.path(of: name), tag: tag.encoded)
        }
        guard !requests.isEmpty else { return }
        // The batch's state changes come at once: a listener that keeps up may be that far behind.
        hub.allowBacklog(atLeast: 2 * (transfersByTrack.count + requests.count))
        let ids = try await session.start(requests)
        transfersByTrack.reserveCapacity(transfersByTrack.count + ids.count)
        tracksByTransfer.reserveCapacity(tracksByTransfer.count + ids.count)
        for (track, id) in zip(starting, ids) {
            transfersByTrack[track.id] = id
            tracksByTransfer[id] = track
        }
        // The covers are fetched while the previews download, so tagging at the end finds them ready.
        tagger.expect(zip(starting, ids).map { (track: $0, transfer: $1) })
    }

    /// The cap on all downloads together, bytes a second (`nil`: none).
    public nonisolated var bandwidthLimit: Int? { session.bandwidthLimit }

    /// Caps all downloads together (`nil`: none), those running too.
    public nonisolated func setBandwidthLimit(_ bytesPerSecond: Int?) { session.setBandwidthLimit(bytesPerSecond) }

    /// Pauses a track's download, keeping what was received.
    public func pause(trackID: Int) async throws {
        let id = try transfer(of: trackID)
        if await isBeingFiled(id) { throw DownloadError(.conflict, "cannot pause track \(trackID): it has finished downloading") }
        _ = try await session.pause(id)
    }

    /// Resumes a paused or failed download (one being filed is left to land).
    public func resume(trackID: Int) async throws {
        let id = try transfer(of: trackID)
        if unfiled[id] != nil, let track = tracksByTransfer[id] { return try await startOver([track]) }
        if await isBeingFiled(id) { return }
        try await session.resume(id)
    }

    /// Cancels a download and deletes what was received.
    public func cancel(trackID: Int) async throws {
        let id = try transfer(of: trackID)
        if await isBeingFiled(id) {
            throw DownloadError(
                .conflict, "cannot cancel track \(trackID): it has finished downloading (remove it from the library instead)")
        }
        try await session.cancel(id)
    }

    /// Whether a transfer has completed and is on its way into the library.
    private func isBeingFiled(_ id: TransferID) async -> Bool {
        guard unfiled[id] == nil else { return false }
        return await session.transfer(id)?.state == .completed
    }

    /// Removes a track from the library, deleting its file.
    public func remove(trackID: Int) async throws {
        guard let item = try library.item(id: trackID) else {
            throw DownloadError(.notFound, "track \(trackID) is not in the library")
        }
        let file = library.url(of: item)
        if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        try library.remove(id: trackID)
        hub.emit(.removed(trackID: trackID))
    }

    /// The library, most recent first.
    public nonisolated func libraryItems() throws -> [LibraryItem] { try library.items() }

    /// A page of the library, or what changed in it since a cursor, with its totals, as
    /// documents: one read of the index, off this actor, so listings never queue behind downloads
    /// or each other.
    nonisolated func libraryListing(_ query: ListingQuery) throws -> Listing { try library.listing(query) }

    /// Stops downloads so they resume next time, and lets go of the session.
    public func close() async {
        await session.close()
        pump?.cancel()
        // Once the pump has ended nothing holds the service but its owner: let go, it closes
        // its databases at once (checkpointing their logs when they flush), not some time later.
        await pump?.value
        hub.finish()
        await tagger.shutdown()
        library.close()
    }

    // MARK: - Internals

    func transfer(of trackID: Int) throws -> TransferID {
        guard let id = transfersByTrack[trackID] else {
            throw DownloadError(.notFound, "track \(trackID) is not being downloaded")
        }
        return id
    }

    static func status(_ track: Track, _ transfer: TransferProgress) -> DownloadStatus {
        DownloadStatus(
            track: track, state: state(transfer.state), receivedBytes: transfer.receivedBytes,
            expectedBytes: transfer.expectedBytes, failure: transfer.failure.map(Self.reason), file: nil)
    }

    static func state(_ state: TransferState) -> DownloadState {
        switch state {
        case .queued: .queued
        case .running: .downloading
        case .paused: .paused
        case .failed, .cancelled: .failed
        case .completed: .downloaded
        }
    }
}
