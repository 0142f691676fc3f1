import Foundation

/// A song in the iTunes catalog.
///
/// Fields the catalog did not send are `nil` rather than a decoding failure, so one odd result
/// never costs the user the whole search. A track without a usable preview URL is kept and
/// reported as not downloadable.
public struct Track: Sendable, Hashable, Identifiable, Codable {
    /// The catalog's `trackId`: the key for everything HalfTunes does with a track.
    public var id: Int
    /// The track's title.
    public var name: String
    /// The performing artist.
    public var artist: String
    /// The album (the catalog's "collection").
    public var album: String?
    /// Cover art, about 100×100 pixels.
    public var artworkURL: URL?
    /// Length of the full track in milliseconds.
    public var durationMs: Int?
    /// The 30-second preview; `nil` when the catalog gave none or gave one that is not http(s).
    public var previewURL: URL?
    /// The primary genre, such as "Pop".
    public var genre: String?
    /// When the track was released.
    public var releaseDate: Date?
    /// Whether the lyrics are explicit, as the catalog rates them.
    public var explicitness: Explicitness?
    /// The track's page in the store (the catalog's `trackViewUrl`): previews are the store's
    /// promotion, and its terms expect the link beside them.
    public var storeURL: URL?
    /// The track's number on its album, when known.
    public var trackNumber: Int?
    /// How many tracks its album has, when known.
    public var trackCount: Int?

    /// Creates a track from its parts.
    public init(
        id: Int,
        name: String,
        artist: String,
        album: String? = nil,
        artworkURL: URL? = nil,
        durationMs: Int? = nil,
        previewURL: URL? = nil,
        genre: String? = nil,
        releaseDate: Date? = nil,
        explicitness: Explicitness? = nil,
        storeURL: URL? = nil,
        trackNumber: Int? = nil,
        trackCount: Int? = nil
    ) {
        self.id = id
        self.name = name
        self.artist = artist
        self.album = album
        self.artworkURL = artworkURL
        self.durationMs = durationMs
        self.previewURL = previewURL
        self.genre = genre
        self.releaseDate = releaseDate
        self.explicitness = explicitness
        self.storeURL = storeURL
        self.trackNumber = trackNumber
        self.trackCount = trackCount
    }

    /// Whether the track has a preview that can be downloaded.
    public var isDownloadable: Bool { previewURL != nil }

    /// The duration as `m:ss`, or `nil` when unknown.
    public var formattedDuration: String? {
        guard let durationMs, durationMs >= 0 else { return nil }
        let seconds = durationMs / 1000
        return String(format: "%d:%02d", seconds / 60, seconds % 60)
    }

    enum CodingKeys: String, CodingKey {
        case id, name, artist, album, artworkURL, durationMs, previewURL, genre, releaseDate, explicitness
        case storeURL, trackNumber, trackCount
        case downloadable
    }

    /// Decodes HalfTunes' own JSON form of a track (not the iTunes API's; see `SearchResponse`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int.self, forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        artist = try c.decode(String.self, forKey: .artist)
        album = try c.decodeIfPresent(String.self, forKey: .album)
        artworkURL = try c.decodeIfPresent(URL.self, forKey: .artworkURL)
        durationMs = try c.decodeIfPresent(Int.self, forKey: .durationMs)
        previewURL = try c.decodeIfPresent(URL.self, forKey: .previewURL)
        genre = try c.decodeIfPresent(String.self, forKey: .genre)
        releaseDate = try c.decodeIfPresent(Date.self, forKey: .releaseDate)
        explicitness = try c.decodeIfPresent(Explicitness.self, forKey: .explicitness)
        storeURL = try c.decodeIfPresent(URL.self, forKey: .storeURL)
        trackNumber = try c.decodeIfPresent(Int.self, forKey: .trackNumber)
        trackCount = try c.decodeIfPresent(Int.self, forKey: .trackCount)
    }

    /// Encodes every field (absent ones as `null`) plus `downloadable`, so scripts see a stable shape.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(artist, forKey: .artist)
        try c.encode(album, forKey: .album)
        try c.encode(artworkURL, forKey: .artworkURL)
        try c.encode(durationMs, forKey: .durationMs)
        try c.encode(previewURL, forKey: .previewURL)
        try c.encode(genre, forKey: .genre)
        try c.encode(releaseDate, forKey: .releaseDate)
        try c.encode(explicitness, forKey: .explicitness)
        try c.encode(storeURL, forKey: .storeURL)
        try c.encode(trackNumber, forKey: .trackNumber)
        try c.encode(trackCount, forKey: .trackCount)
        try c.encode(isDownloadable, forKey: .downloadable)
    }
}

/// The catalog's explicit-content rating of a track.
public enum Explicitness: String, Sendable, Hashable, Codable {
    /// Explicit lyrics.
    case explicit
    /// An edited version of an explicit track.
    case cleaned
    /// No explicit content.
    case notExplicit
}
