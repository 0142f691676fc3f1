import Foundation

/// The local API's routes: one table that the server registers and the client calls.
public enum APIRoute: Sendable, Hashable {
    /// `GET /api/search?term=&limit=&country=&in=&explicit=&lang=&offset=` → ``SearchResults``.
    case search(SearchRequest)
    /// `GET /api/album/:id` → ``SearchResults`` with its ``SearchResults/album``: an album's songs.
    case album(Int)
    /// `GET /api/artist/:id?limit=` → ``SearchResults`` with its ``SearchResults/artist``: an artist's songs.
    case artist(Int, limit: Int)
    /// `GET /api/downloads?limit=&after=&since=` → ``Listing``.
    case listing(ListingQuery)
    /// `GET /api/events` → Server-Sent Events of ``WireEvent``.
    case events
    /// `POST /api/downloads/:id` → ``DownloadDocument``: starts (or resumes) a download.
    case start(Int)
    /// `POST /api/downloads?ids=A,B,…` (up to ``maximumBatch``) → ``BatchDocument``: starts a
    /// batch with one lookup, as `halftunes download` does; ids the catalog lacks fail it (404
    /// naming them in `trackIds`), nothing started.
    case startBatch([Int])
    /// `POST /api/downloads/:id/pause` → ``DownloadDocument``.
    case pause(Int)
    /// `POST /api/downloads/:id/resume` → ``DownloadDocument``.
    case resume(Int)
    /// `DELETE /api/downloads/:id` → 204: cancels a download, deleting its bytes.
    case cancel(Int)
    /// `DELETE /api/library/:id` → 204: removes a track from the library, deleting its file.
    case remove(Int)
    /// `POST /api/library/:id/tag` → ``DownloadDocument``: writes the track's tags into its file.
    case retag(Int)
    /// `GET /api/limit-rate` → ``RateDocument``: the cap on all downloads together.
    case rate
    /// `POST /api/limit-rate?bytesPerSecond=N` → ``RateDocument``: sets the cap (0: none).
    case setRate(Int?)
    /// `GET /library/:id` → the file, with ranges (a download in progress: the bytes so far,
    /// and the rest as they arrive).
    case file(Int)

    /// The most ids one ``startBatch(_:)`` takes (a request line of some 2 KB).
    public static let maximumBatch = 200

    /// The route's shape, for registering a handler.
    public enum Pattern: String, Sendable, CaseIterable {
        case search, album, artist, listing, events, start, startBatch, pause, resume, cancel, remove, retag, rate, setRate
        case file

        /// The HTTP method.
        public var method: String {
            switch self {
            case .search, .album, .artist, .listing, .events, .file, .rate: "GET"
            case .start, .startBatch, .pause, .resume, .retag, .setRate: "POST"
            case .cancel, .remove: "DELETE"
            }
        }

        /// The path, with `:id` where the track id goes.
        public var path: String {
            switch self {
            case .search: "/api/search"
            case .album: "/api/album/:id"
            case .artist: "/api/artist/:id"
            case .listing, .startBatch: "/api/downloads"
            case .events: "/api/events"
            case .start, .cancel: "/api/downloads/:id"
            case .pause: "/api/downloads/:id/pause"
            case .resume: "/api/downloads/:id/resume"
            case .remove: "/api/library/:id"
            case .retag: "/api/library/:id/tag"
            case .rate, .setRate: "/api/limit-rate"
            case .file: "/library/:id"
            }
        }

        /// Whether the route changes state (and so needs the same-origin check and the token).
        public var changesState: Bool { method != "GET" }
    }

    /// Its pattern.
    public var pattern: Pattern {
        switch self {
        case .search: .search
        case .album: .album
        case .artist: .artist
        case .listing: .listing
        case .events: .events
        case .start: .start
        case .startBatch: .startBatch
        case .pause: .pause
        case .resume: .resume
        case .cancel: .cancel
        case .remove: .remove
        case .retag: .retag
        case .rate: .rate
        case .setRate: .setRate
        case .file: .file
        }
    }

    /// The HTTP method.
    public var method: String { pattern.method }

    /// The path and query to request.
    public var target: String {
        switch self {
        case .search(let request):
            var components = URLComponents()
            components.path = pattern.path
            components.queryItems = request.parameters.map { URLQueryItem(name: $0.name, value: $0.value) }
            // `+` means a space in a query: escape it, so a term like "AC+DC" arrives as written.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            return components.string ?? pattern.path
        case .listing(let query):
            var components = URLComponents()
            components.path = pattern.path
            components.queryItems = query.queryItems.isEmpty ? nil : query.queryItems
            return components.string ?? pattern.path
        case .events, .rate:
            return pattern.path
        case .setRate(let rate):
            return pattern.path + "?bytesPerSecond=\(rate ?? 0)"
        case .startBatch(let ids):
            return pattern.path + "?ids=" + ids.map(String.init).joined(separator: ",")
        case .artist(let id, let limit):
            return pattern.path.replacingOccurrences(of: ":id", with: String(id)) + "?limit=\(limit)"
        case .album(let id), .start(let id), .pause(let id), .resume(let id), .cancel(let id), .remove(let id), .retag(let id),
            .file(let id):
            return pattern.path.replacingOccurrences(of: ":id", with: String(id))
        }
    }
}
