import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NetworkBasics

/// A client of the iTunes Search and Lookup APIs (or any server that speaks them, such as the
/// DemoCatalog).
///
/// It caches recent answers briefly, joins identical calls in flight, and paces its calls so that a
/// long-running process cannot exceed the API's limit of about 20 calls a minute however fast a
/// user types.
///
/// ```swift
/// let catalog = try ITunesCatalog(logger: logger)
/// let tracks = try await catalog.search(SearchQuery(term: "price tag", limit: 25))
/// ```
public actor ITunesCatalog {
    /// The configuration this client was made with.
    public nonisolated let configuration: CatalogConfiguration
    private let httpClient: HTTPClient
    private let time: Timekeeper
    private let logger: Logger
    private let baseURLString: String
    private let host: String
    private var cache: ResponseCache<CatalogAnswer>
    private var pacer: CallPacer?
    private var inFlight: [String: Task<CatalogAnswer, any Error>] = [:]
    /// Calls that joined one already in flight instead of making their own.
    private(set) var joinedCalls = 0

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - configuration: The catalog URL and pacing.
    ///   - httpClient: The HTTP client to use; by default one that fails fast on refused connections
    ///     and trusts the configuration's ``CatalogConfiguration/trustRoots``.
    ///   - clock: The clock for pacing and cache expiry.
    ///   - logger: Where calls are logged (at debug level).
    /// - Throws: ``CatalogError/Code/invalidCatalogURL`` when the base URL is not http(s) with a host.
    public init<C: Clock>(
        configuration: CatalogConfiguration = CatalogConfiguration(),
        httpClient: HTTPClient? = nil,
        clock: C = ContinuousClock(),
        logger: Logger
    ) throws(CatalogError) where C.Duration == Duration {
        let url = configuration.baseURL
        guard URLPolicy.problem(with: url) == nil, let host = url.host, url.query == nil else {
            throw .invalidCatalogURL(url.absoluteString)
        }
        var base = url.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.configuration = configuration
        self.httpClient =
            httpClient ?? .catalog(trusting: configuration.trustRoots, through: configuration.proxies.server(for: url))
        self.time = Timekeeper(clock)
        self.logger = logger
        self.baseURLString = base
        self.host = url.port.map { "\(host):\($0)" } ?? host
        self.cache = ResponseCache(capacity: configuration.cacheCapacity, lifetime: configuration.cacheLifetime)
        self.pacer = configuration.callsPerMinute.map { CallPacer(limit: max(1, $0)) }
    }

    /// Searches the catalog for songs.
    ///
    /// - Returns: The songs found, in the catalog's order; empty when nothing matched.
    /// - Throws: ``CatalogError``.
    public func search(_ query: SearchQuery) async throws(CatalogError) -> [Track] {
        try await tracks(at: "\(baseURLString)/search?\(query.queryString)")
    }

    /// The most ids in one lookup call: a URL of 200 nine-digit ids is about 2 KB, well under the
    /// 8 KB that servers commonly accept (nginx answers 414 above that).
    public static let idsPerLookup = 200

    /// Looks up songs by their track ids: one call per ``idsPerLookup`` ids (one call for a batch
    /// of previews). Ids the catalog does not know are absent from the answer.
    ///
    /// The calls of a large batch run side by side, up to ``parallelLookups`` at once, each
    /// answer decoded off this actor as it arrives (the pacing still applies to every call). The
    /// tracks come in the order of the calls; when calls fail, the first one's error is thrown.
    public func lookup(ids: [Int]) async throws(CatalogError) -> [Track] {
        let unique = Array(Set(ids)).sorted()
        let urls = stride(from: 0, to: unique.count, by: Self.idsPerLookup).map { start in
            let list = unique[start..<min(start + Self.idsPerLookup, unique.count)].map(String.init).joined(separator: ",")
            return lookupURL(list)
        }
        if urls.count < 2 {
            guard let url = urls.first else { return [] }
            return try await tracks(at: url)
        }
        let answers = await withTaskGroup(
            of: (Int, Result<[Track], CatalogError>).self, returning: [Result<[Track], CatalogError>?].self
        ) { group in
            var answers = [Result<[Track], CatalogError>?](repeating: nil, count: urls.count)
            // A call starts as one ends, at most parallelLookups running.
            var next = 0
            func startNext() {
                guard next < urls.count else { return }
                let (index, url) = (next, urls[next])
                next += 1
                group.addTask {
                    // An untyped catch on purpose: with `do throws(CatalogError)` here, Swift
                    // 6.3.1's release build trapped where the answer is stored below.
                    let answer: Result<[Track], CatalogError>
                    do { answer = .success(try await self.tracks(at: url)) } catch {
                        answer = .failure(error as? CatalogError ?? .malformedResponse(reason: "\(error)"))
                    }
                    return (index, answer)
                }
            }
            for _ in 0..<Self.parallelLookups { startNext() }
            while let (index, answer) = await group.next() {
                answers[index] = answer
                startNext()
            }
            return answers
        }
        var found: [Track] = []
        found.reserveCapacity(unique.count)
        for answer in answers {
            switch answer {
            case .success(let tracks)?: found += tracks
            case .failure(let error)?: throw error
            case nil: throw .malformedResponse(reason: "a lookup call did not end")
            }
        }
        return found
    }

    /// Lookup calls of one batch at once.
    public static let parallelLookups = 4

    /// Looks up one song by its track id; `nil` when the catalog does not know it.
    public func lookup(id: Int) async throws(CatalogError) -> Track? {
        try await lookup(ids: [id]).first { $0.id == id }
    }

    /// Looks one track up again, past the cache (a preview URL that has gone stale), and caches
    /// the new answer.
    public func lookupAfresh(id: Int) async throws(CatalogError) -> Track? {
        try await tracks(at: lookupURL(String(id)), fresh: true).first { $0.id == id }
    }

    /// Looks up an album and its songs (`lookup?id=ID&entity=song`): the songs in disc and track
    /// order, whatever order the catalog answers in, music videos left out; `nil` when the catalog
    /// knows no album by that id. The store may answer with fewer songs than the album's
    /// ``Album/trackCount``: those it cannot offer.
    public func lookup(collection id: Int) async throws(CatalogError) -> AlbumListing? {
        guard id > 0 else { throw .invalidQuery("an album id is a positive number, not \(id)") }
        let answer = try await answer(at: "\(baseURLString)/lookup?id=\(id)&entity=song&limit=200")
        guard let album = answer.albums.first(where: { $0.id == id }) else { return nil }
        let songs = answer.tracks.filter { ($0.collectionId ?? id) == id }
        return AlbumListing(album: album, tracks: songs.sorted(by: Track.albumOrder))
    }

    /// The most songs ``lookup(artist:limit:)`` asks for.
    public static let artistLimitRange = 1...200

    /// Looks up an artist and their songs, newest first (`lookup?id=ID&entity=song&sort=recent`),
    /// at most `limit` of them; `nil` when the catalog knows no artist by that id.
    public func lookup(artist id: Int, limit: Int = 50) async throws(CatalogError) -> ArtistListing? {
        guard id > 0 else { throw .invalidQuery("an artist id is a positive number, not \(id)") }
        guard Self.artistLimitRange.contains(limit) else {
            throw .invalidQuery("the limit must be between 1 and 200, not \(limit)")
        }
        let answer = try await answer(at: "\(baseURLString)/lookup?id=\(id)&entity=song&limit=\(limit)&sort=recent")
        guard let artist = answer.artists.first(where: { $0.id == id }) else { return nil }
        // Newest first even where the catalog's sort did not hold (a stable sort: ties keep its order).
        let songs = answer.tracks.enumerated().sorted { lhs, rhs in
            let (left, right) = (lhs.element.releaseDate ?? .distantPast, rhs.element.releaseDate ?? .distantPast)
            return left != right ? left > right : lhs.offset < rhs.offset
        }
        return ArtistListing(artist: artist, tracks: songs.prefix(limit).map(\.element))
    }

    /// The lookup call for a comma-separated list of ids.
    private func lookupURL(_ ids: String) -> String { "\(baseURLString)/lookup?id=\(ids)&entity=song" }

    private func tracks(at url: String, fresh: Bool = false) async throws(CatalogError) -> [Track] {
        try await answer(at: url, fresh: fresh).tracks
    }

    private func answer(at url: String, fresh: Bool = false) async throws(CatalogError) -> CatalogAnswer {
        if !fresh, let cached = cache.value(for: url, at: time.now()) {
            logger.debug("catalog cache hit", metadata: ["url": "\(url)"])
            return cached
        }
        let task: Task<CatalogAnswer, any Error>
        if let running = inFlight[url] {
            task = running
            joinedCalls += 1
        } else {
            task = Task { try await self.fetch(url) }
            inFlight[url] = task
        }
        do {
            let answer = try await task.value
            inFlight[url] = nil
            return answer
        } catch {
            inFlight[url] = nil
            throw error as? CatalogError ?? .malformedResponse(reason: "\(error)")
        }
    }

    private func fetch(_ url: String) async throws(CatalogError) -> CatalogAnswer {
        try await waitForTurn()
        logger.debug("catalog call", metadata: ["url": "\(url)"])
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "HalfTunes/1.0 (Linux)")
        let body: ByteBuffer
        let status: Int
        let retryAfter: String?
        do {
            let response = try await httpClient.execute(request, deadline: .now() + .init(configuration.timeout))
            status = Int(response.status.code)
            retryAfter = response.headers.first(name: "Retry-After")
            body = try await response.body.collect(upTo: 16 << 20)
        } catch {
            throw await TransportFailure.catalogError(
                for: error, host: host, url: configuration.baseURL, timeout: configuration.timeout,
                proxies: configuration.proxies)
        }
        let data = Data(body.readableBytesView)
        switch status {
        case 200..<300:
            let answer = try await Self.decode(data, catalogHost: configuration.baseURL.host ?? "", logger: logger)
            cache.insert(answer, for: url, at: time.now())
            return answer
        case 403, 429:
            let wait = RetryAfter.parse(retryAfter).map { max($0, .seconds(1)) }
            pacer?.block(until: time.now() + (wait ?? .seconds(60)))
            throw .rateLimited(status: status, retryAfter: wait)
        case 400..<500:
            // Without the API's own message the address is likely wrong (a 404 from another server).
            let message = SearchResponse.errorMessage(in: data)
            throw .badRequest(message: message ?? "HTTP \(status) for \(url) (is the catalog URL right?)")
        default:
            throw .serverError(status: status)
        }
    }

    /// An answer, decoded off the actor (answers of one batch decode side by side), without
    /// preview or cover URLs the catalog's host may not make HalfTunes fetch.
    @concurrent
    private static func decode(_ data: Data, catalogHost: String, logger: Logger) async throws(CatalogError)
        -> CatalogAnswer
    {
        let source = HostClass(catalogHost)
        var answer = try SearchResponse.decodeAnswer(from: data)
        for index in answer.albums.indices {
            if let url = answer.albums[index].artworkURL, !URLPolicy.mayFetch(url, fromSourceIn: source) {
                answer.albums[index].artworkURL = nil
            }
        }
        answer.tracks = answer.tracks.map { track in
            var track = track
            if let url = track.previewURL, !URLPolicy.mayFetch(url, fromSourceIn: source) {
                logger.notice("preview URL refused", metadata: ["track": "\(track.id)", "url": "\(url)"])
                track.previewURL = nil
            }
            if let url = track.artworkURL, !URLPolicy.mayFetch(url, fromSourceIn: source) { track.artworkURL = nil }
            return track
        }
        return answer
    }

    /// Waits until the pacer allows a call, or fails at once when the wait would be too long.
    private func waitForTurn() async throws(CatalogError) {
        guard var pacer else { return }
        let now = time.now()
        let wait = pacer.wait(at: now)
        guard wait <= configuration.longestPacingWait else { throw .rateLimited(status: nil, retryAfter: wait) }
        let start = pacer.reserve(at: now)
        self.pacer = pacer
        if start > now {
            logger.debug("catalog call paced", metadata: ["wait": "\(start - now)"])
            do { try await time.sleep(start - now) } catch { throw .timeout(host, after: start - now) }
        }
    }
}
