import Foundation
import ITunesSearch
import Logging
import NetworkBasics
import TransferEngine

/// The ``DownloadControl`` of the process that owns a home's downloads: the agent (or `demo`, or
/// `serve` with `HALFTUNES_AGENT=0`, hosting it), or a command with `HALFTUNES_AGENT=0`.
///
/// It opens the download service (and so takes the session's lock) only when an operation needs
/// it: a search or `play` works beside another process that owns the session.
public actor LocalDownloadControl: DownloadControl {
    /// Makes the catalog client. It is given the open download service's HTTP clients (`nil` when
    /// none is open) to share their connections; the client it makes goes when the service closes.
    public typealias CatalogMaker = @Sendable (_ sharing: HTTPClientSet?) async throws -> ITunesCatalog

    public nonisolated let owner = DownloadOwner.thisProcess
    private let home: HalfTunesHome
    let configuration: TransferSessionConfiguration
    private let tagging: TaggingOptions
    private let makeCatalog: CatalogMaker
    private let logger: Logger
    let tracks = TrackDirectory()
    var service: DownloadService?
    private var catalog: ITunesCatalog?
    private var lookAhead: LookAhead?
    private var library: LibraryStore?
    let ownsService: Bool

    /// A control that opens `home`'s downloads when first needed, and closes them in ``close()``.
    ///
    /// - Parameters:
    ///   - configuration: The session's configuration (`startsTransfers: false` for a command that
    ///     only looks or edits).
    ///   - tagging: Whether finished downloads get their tags and cover.
    ///   - catalog: Makes the catalog client, when a search or a lookup first needs it.
    public init(
        home: HalfTunesHome, configuration: TransferSessionConfiguration, tagging: TaggingOptions = TaggingOptions(),
        catalog: @escaping CatalogMaker, logger: Logger
    ) {
        self.home = home
        self.configuration = configuration
        self.tagging = tagging
        self.makeCatalog = catalog
        self.logger = logger
        self.ownsService = true
    }

    /// A control over a download service that is already open (the agent's, which closes it).
    ///
    /// - Parameter lookAhead: A lookup under way whose tracks the next start of its ids takes.
    public init(service: DownloadService, catalog: @escaping CatalogMaker, lookAhead: LookAhead? = nil, logger: Logger) {
        self.lookAhead = lookAhead
        self.home = service.home
        self.configuration = TransferSessionConfiguration()
        self.tagging = TaggingOptions()
        self.makeCatalog = catalog
        self.logger = logger
        self.service = service
        self.ownsService = false
    }

    public func search(term: String, limit: Int, country: String) async throws(DownloadError) -> SearchResults {
        try await search(SearchRequest(term: term, limit: limit, country: country))
    }

    public func search(_ request: SearchRequest) async throws(DownloadError) -> SearchResults {
        try await DownloadError.catching {
            SearchResults(results: try await documents(of: try await openCatalog().search(try request.query())))
        }
    }

    public func start(_ trackIDs: [Int]) async throws(DownloadError) -> [DownloadDocument] {
        try await DownloadError.catching {
            let service = try await openService()
            var known: [Int: Track] = [:]
            known.reserveCapacity(trackIDs.count)
            var unseen: [Int] = []
            for id in Set(trackIDs) {
                if let track = tracks.track(id) { known[id] = track } else { unseen.append(id) }
            }
            // The rest from the library and the downloads under way: one read for the batch.
            for (id, status) in try await service.statuses(trackIDs: unseen) { known[id] = status.track }
            // Not remembered: from here on the library or the download under way has them.
            var missing = Set(trackIDs).subtracting(known.keys)
            if let ahead = lookAhead, !missing.isDisjoint(with: ahead.ids) {
                lookAhead = nil
                let found = try await ahead.tracks
                tracks.remember(found)
                for track in found where missing.contains(track.id) { known[track.id] = track }
                // What it did not find, the catalog does not have.
                missing.subtract(ahead.ids)
            }
            if !missing.isEmpty {
                for track in try await openCatalog().lookup(ids: Array(missing)) { known[track.id] = track }
            }
            let unknown = trackIDs.filter { known[$0] == nil }
            guard unknown.isEmpty else { throw DownloadError.unknownTracks(unknown) }
            var seen = Set<Int>()
            let ordered = trackIDs.filter { seen.insert($0).inserted }.compactMap { known[$0] }
            return try await service.download(ordered).map(DownloadDocument.init)
        }
    }

    public func pause(_ trackID: Int) async throws(DownloadError) -> DownloadDocument {
        try await DownloadError.catching {
            try await openService().pause(trackID: trackID)
            return try await document(trackID)
        }
    }

    public func resume(_ trackID: Int) async throws(DownloadError) -> DownloadDocument {
        try await DownloadError.catching {
            try await openService().resume(trackID: trackID)
            return try await document(trackID)
        }
    }

    public func cancel(_ trackID: Int) async throws(DownloadError) {
        try await DownloadError.catching { try await openService().cancel(trackID: trackID) }
    }

    public func remove(_ trackID: Int) async throws(DownloadError) {
        try await DownloadError.catching { try await openService().remove(trackID: trackID) }
    }

    public func listing(_ query: ListingQuery) async throws(DownloadError) -> Listing {
        try await DownloadError.catching {
            let service: DownloadService
            if self.service == nil, home.isReadOnly { return try listingBesideOwner(query) }
            do { service = try await openService() } catch let error as TransferError where error.code == .sessionLocked {
                return try listingBesideOwner(query)
            }
            // Downloads in flight are few: every answer has them all, except a later page. They
            // are read first: a track filed in the library meanwhile is then in both lists (the
            // library's entry is the newer), never in neither.
            let downloads = query.after == nil ? await service.downloads().map(DownloadDocument.init) : []
            var listing = try service.libraryListing(query)
            listing.downloads = downloads
            return listing
        }
    }

    /// A listing while another process owns the downloads (a foreground `halftunes download`), or
    /// of a home this process cannot write:
    /// its downloads as its journal last recorded them, read first as ``listing(_:)`` reads them,
    /// then the library. A track the library has is listed there alone: a completed download
    /// stays in its owner's journal a while after it is filed.
    private func listingBesideOwner(_ query: ListingQuery) throws -> Listing {
        let recorded = query.after == nil ? try DownloadService.recordedDownloads(home: home) : []
        let library = try openLibrary()
        var listing = try library.listing(query)
        let filed = try library.items(ids: recorded.map(\.track.id))
        listing.downloads = recorded.filter { filed[$0.track.id] == nil }.map(DownloadDocument.init)
        return listing
    }

    public func retag(_ trackID: Int) async throws(DownloadError) -> DownloadDocument {
        try await DownloadError.catching { DownloadDocument(try await openService().retag(trackID: trackID)) }
    }

    public func playTarget(_ trackID: Int) async throws(DownloadError) -> DownloadDocument {
        try await DownloadError.catching {
            if let status = try await libraryStatus(of: trackID) { return DownloadDocument(status) }
            guard let partial = try await partialTarget(trackID) else {
                throw DownloadError(
                    .notFound, "track \(trackID) is not in the library; download it first: halftunes download \(trackID)")
            }
            return partial
        }
    }

    public func streamTrack(_ trackID: Int, into receive: @Sendable ([UInt8]) async -> Bool) async throws(DownloadError) {
        // A partial file goes when its download completes or is cancelled: until then, it grows
        // (opened at once, or the finished file looked up instead). A library file is read whole.
        let (target, partial) = try await PlaySource.open { () async throws(DownloadError) in try await playTarget(trackID) }
        let path = partial?.path ?? target.file ?? ""
        let reader =
            partial.map { partial in GrowingFileReader(opened: partial) { FileManager.default.fileExists(atPath: path) } }
            ?? GrowingFileReader(file: URL(fileURLWithPath: path)) { false }
        struct Stop: Error {}
        do {
            _ = try await reader.read { chunk in if await !receive(chunk) { throw Stop() } }
        } catch is Stop {
            return
        } catch {
            throw DownloadError(error)
        }
    }

    /// A track downloading (here or in another process) with bytes on disk: its document, with
    /// the partial file as `file` and the state `downloading`.
    private func partialTarget(_ trackID: Int) async throws -> DownloadDocument? {
        if let service, let partial = await service.partialFile(trackID: trackID),
            var document = try await status(of: trackID).map(DownloadDocument.init)
        {
            document.file = partial.path
            return document
        }
        // Another process (a foreground `download`) may own the session: its partial file is
        // the only sign, named after the track.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: home.library.path)) ?? []
        guard
            let name = names.first(where: {
                $0.hasSuffix(".part") && LibraryNaming.trackID(inFileName: String($0.dropLast(5))) == trackID
            })
        else { return nil }
        let file = home.library.appendingPathComponent(name)
        let title = (String(name.dropLast(5)) as NSString).deletingPathExtension
        var document = DownloadDocument(Track(id: trackID, name: title, artist: ""), status: nil)
        (document.state, document.file) = (.downloading, file.path)
        document.receivedBytes = FolderStamp.size(of: file) ?? 0
        return document
    }

    public func events() async throws(DownloadError) -> AsyncStream<DownloadEvent> {
        try await DownloadError.catching { try await openService().events() }
    }

    public func eventBatches() async throws(DownloadError) -> AsyncStream<[DownloadEvent]> {
        try await DownloadError.catching { try await openService().eventBatches() }
    }

    public func close() async {
        if ownsService { await service?.close() }
        service = nil
        catalog = nil  // it may be on the service's clients
    }

    // MARK: - Internals

    private func openService() async throws -> DownloadService {
        if let service { return service }
        let opened = try await DownloadService.open(home: home, configuration: configuration, tagging: tagging, logger: logger)
        // A preview URL gone stale is looked up again (the catalog made when first needed).
        await opened.setRefresher { [weak self] id in await self?.freshTrack(id) }
        service = opened
        return opened
    }

    /// The library alone, opened once, for a control whose session is not open: reading it needs
    /// no lock, so a search or `play` works beside a process that owns the session.
    private func openLibrary() throws -> LibraryStore {
        if let library { return library }
        let opened = try LibraryStore(path: home.libraryIndex.path, folder: home.library, readOnly: home.isReadOnly)
        library = opened
        return opened
    }

    /// A track looked up again past the catalog's cache; `nil` when the catalog cannot say.
    private func freshTrack(_ id: Int) async -> Track? {
        try? await openCatalog().lookupAfresh(id: id)
    }

    /// The catalog, made when first needed: on the open service's clients when there is one, so
    /// a lookup and the downloads it starts share connections (one handshake for both when the
    /// previews come from the catalog's host).
    func openCatalog() async throws -> ITunesCatalog {
        if let catalog { return catalog }
        let made = try await makeCatalog(service?.httpClients)
        catalog = made
        return made
    }

    /// Tracks' statuses in one read: from an open service, else from the library and the
    /// downloads as their journal records them, read first as a listing reads them (a search
    /// beside a process that owns the downloads, or with none open: a paused download is paused).
    func statuses(of trackIDs: [Int]) async throws -> [Int: DownloadStatus] {
        if let service { return try await service.statuses(trackIDs: trackIDs) }
        let recorded: [DownloadStatus]
        do { recorded = try DownloadService.recordedDownloads(home: home) } catch {
            // The statuses are an extra of a search's results, which stand without them.
            logger.warning("cannot read the downloads' journal", metadata: ["error": "\(error)"])
            recorded = []
        }
        let library = try openLibrary()
        var statuses = try library.items(ids: trackIDs).mapValues(library.status(of:))
        let wanted = Set(trackIDs)
        for status in recorded where wanted.contains(status.track.id) && statuses[status.track.id] == nil {
            statuses[status.track.id] = status
        }
        return statuses
    }

    /// A track's status: the whole of it from an open service, else from the library alone
    /// (a search beside another process that owns the session).
    private func status(of trackID: Int) async throws -> DownloadStatus? {
        if let service { return try await service.status(trackID: trackID) }
        return try await libraryStatus(of: trackID)
    }

    /// A downloaded track's status, from the service when it is open, else from the library alone.
    private func libraryStatus(of trackID: Int) async throws -> DownloadStatus? {
        if let service {
            let status = try await service.status(trackID: trackID)
            return status?.state == .downloaded ? status : nil
        }
        let library = try openLibrary()
        return try library.item(id: trackID).map(library.status(of:))
    }

    private func document(_ trackID: Int) async throws -> DownloadDocument {
        if let status = try await status(of: trackID) { return DownloadDocument(status) }
        if let track = tracks.track(trackID) { return DownloadDocument(track, status: nil) }
        throw DownloadError(.notFound, "track \(trackID) is neither downloaded nor downloading")
    }
}
