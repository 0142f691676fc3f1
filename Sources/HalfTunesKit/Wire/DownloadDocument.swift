import Foundation
import ITunesSearch

// The wire schema, version 1: what the agent sends, what the page and the command line
// read, and what `--json` prints. One definition for every edge, so none can drift from another.
// Every object that describes a download carries `v`, the track id as `id` and its state as `state`
// at its top level.

/// The schema version every document and event carries as `v`.
public let wireVersion = 1

/// A track and where its download stands: a search result, a `list` entry, an API answer.
public struct DownloadDocument: Codable, Sendable, Hashable {
    /// The schema version (``wireVersion``).
    public var v = wireVersion
    /// The track id.
    public var id: Int
    /// Where the download stands (`notDownloaded` for a track never downloaded).
    public var state: DownloadState
    public var name: String
    public var artist: String
    public var album: String?
    public var artworkURL: URL?
    public var durationMs: Int?
    /// The catalog's preview (informational: the API takes track ids, never URLs).
    public var previewURL: URL?
    /// Whether the catalog has a preview to download.
    public var downloadable: Bool
    /// Bytes on disk so far (the file's size once downloaded).
    public var receivedBytes: Int64
    /// The full size, when known.
    public var expectedBytes: Int64?
    /// Why it failed, when it did.
    public var reason: String?
    /// The library file, once downloaded (the API is local: this is for scripts).
    public var file: String?
    /// The track's page in the store, when the catalog gives one.
    public var storeURL: URL?
    /// Something the user should know about a downloaded file: it was kept as downloaded,
    /// without tags, and why.
    public var warning: String?
    /// The catalog's id of the track's album (for `GET /api/album/:id`), when known.
    public var collectionId: Int?
    /// The catalog's id of the track's artist (for `GET /api/artist/:id`), when known.
    public var artistId: Int?
    /// The disc of its album the track is on, when known.
    public var discNumber: Int?
    /// The track's number on its disc, when known.
    public var trackNumber: Int?

    /// A track and its status (`nil`: never downloaded).
    public init(_ track: Track, status: DownloadStatus?) {
        id = track.id
        name = track.name
        artist = track.artist
        album = track.album
        artworkURL = track.artworkURL
        durationMs = track.durationMs
        previewURL = track.previewURL
        downloadable = track.isDownloadable
        state = status?.state ?? .notDownloaded
        receivedBytes = status?.receivedBytes ?? 0
        expectedBytes = status?.expectedBytes
        reason = status?.failure
        file = status?.file?.path
        storeURL = track.storeURL
        warning = status?.warning
        collectionId = track.collectionId
        artistId = track.artistId
        discNumber = track.discNumber
        trackNumber = track.trackNumber
    }

    /// A track's status.
    public init(_ status: DownloadStatus) { self.init(status.track, status: status) }

    /// The status it describes.
    public var status: DownloadStatus {
        DownloadStatus(
            track: Track(
                id: id, name: name, artist: artist, album: album, artworkURL: artworkURL, durationMs: durationMs,
                previewURL: previewURL, storeURL: storeURL, trackNumber: trackNumber, collectionId: collectionId,
                artistId: artistId, discNumber: discNumber),
            state: state, receivedBytes: receivedBytes, expectedBytes: expectedBytes, failure: reason,
            file: file.map { URL(filePath: $0, directoryHint: .notDirectory) }, warning: warning)
    }
}

/// Downloads in flight and the library: `GET /api/downloads` and `halftunes list --json`.
///
/// Asked for with a ``ListingQuery``: the whole of it, a page of the library, or only what
/// changed since an earlier listing's ``cursor``.
public struct Listing: Codable, Sendable, Hashable {
    public var v = wireVersion
    /// Queued, downloading, paused and failed downloads, in queue order.
    public var downloads: [DownloadDocument]
    /// Downloaded tracks, most recent first (a page of them, or those added since `since`).
    public var library: [DownloadDocument]
    /// How many tracks the whole library holds.
    public var libraryCount: Int?
    /// The size of the whole library's files, in bytes.
    public var libraryBytes: Int64?
    /// Where the next page starts (pass it as `after`); absent on the last page.
    public var next: String?
    /// Pass as `since` to get only what changes after this listing.
    public var cursor: String?
    /// Tracks removed from the library since `since` (only in an answer to `since`).
    public var removed: [Int]?

    /// A listing.
    public init(
        downloads: [DownloadDocument], library: [DownloadDocument], libraryCount: Int? = nil, libraryBytes: Int64? = nil,
        next: String? = nil, cursor: String? = nil, removed: [Int]? = nil
    ) {
        self.downloads = downloads
        self.library = library
        self.libraryCount = libraryCount
        self.libraryBytes = libraryBytes
        self.next = next
        self.cursor = cursor
        self.removed = removed
    }
}

/// Search results: `GET /api/search` and `halftunes search --json`; an album's songs
/// (`GET /api/album/:id`, `halftunes album ID --json`) or an artist's (`GET /api/artist/:id`,
/// `halftunes artist ID --json`), with the album or the artist as a header object.
public struct SearchResults: Codable, Sendable, Hashable {
    public var v = wireVersion
    public var results: [DownloadDocument]
    /// The album these are the songs of (in disc and track order), for an album's listing.
    public var album: AlbumDocument?
    /// The artist these are the songs of (newest first), for an artist's listing.
    public var artist: ArtistDocument?

    /// Results.
    public init(results: [DownloadDocument], album: AlbumDocument? = nil, artist: ArtistDocument? = nil) {
        (self.results, self.album, self.artist) = (results, album, artist)
    }
}

/// An album, as the header of its songs' listing.
public struct AlbumDocument: Codable, Sendable, Hashable {
    /// The catalog's `collectionId`.
    public var id: Int
    public var name: String
    public var artist: String
    public var artistId: Int?
    public var artworkURL: URL?
    /// The year it was released.
    public var year: Int?
    /// How many tracks the album has as the catalog counts them (those offered may be fewer).
    public var trackCount: Int?
    public var genre: String?
    /// Whether the catalog rates the album explicit.
    public var explicit: Bool?
    public var storeURL: URL?
    public var copyright: String?

    /// The document of an album.
    public init(_ album: Album) {
        (id, name, artist, artistId, artworkURL) = (album.id, album.name, album.artist, album.artistId, album.artworkURL)
        (year, trackCount, genre, storeURL, copyright) = (
            album.year, album.trackCount, album.genre, album.storeURL, album.copyright
        )
        explicit = album.explicitness.map { $0 == .explicit }
    }
}

/// An artist, as the header of their songs' listing.
public struct ArtistDocument: Codable, Sendable, Hashable {
    /// The catalog's `artistId`.
    public var id: Int
    public var name: String
    public var genre: String?
    public var storeURL: URL?

    /// The document of an artist.
    public init(_ artist: Artist) { (id, name, genre, storeURL) = (artist.id, artist.name, artist.genre, artist.storeURL) }
}

/// What an edge answers when it cannot do what was asked.
public struct ErrorDocument: Codable, Sendable, Hashable {
    public var v = wireVersion
    public var code: DownloadError.Code
    public var message: String
    /// The tracks it is about, when it is about some of those asked for (``DownloadError/trackIDs``).
    public var trackIds: [Int]?

    /// The document of an error.
    public init(_ error: DownloadError) {
        code = error.code
        message = error.message
        trackIds = error.trackIDs.isEmpty ? nil : error.trackIDs
    }

    /// The error it describes.
    public var error: DownloadError { DownloadError(code, message, trackIDs: trackIds ?? []) }
}

/// The cap on all downloads together: `GET`/`POST /api/limit-rate` and `halftunes limit-rate`.
public struct RateDocument: Codable, Sendable, Hashable {
    public var v = wireVersion
    /// Bytes a second; absent when there is no cap.
    public var bytesPerSecond: Int?

    /// The document of a cap.
    public init(bytesPerSecond: Int?) { self.bytesPerSecond = bytesPerSecond }
}

/// The downloads a batch started (`POST /api/downloads?ids=`), in the order of the ids asked.
public struct BatchDocument: Codable, Sendable, Hashable {
    public var v = wireVersion
    /// One document for each id, as ``APIRoute/start(_:)`` answers it.
    public var downloads: [DownloadDocument]

    /// The document of a started batch.
    public init(downloads: [DownloadDocument]) { self.downloads = downloads }
}
