import Foundation

/// A song in the iTunes catalog.
///
/// Fields the catalog did not send are `nil` rather than a decoding failure, so one odd result
/// never costs the user the whole search. A track without a usable preview URL is kept and
/// reported as not downloadable.
public struct Track: Sendable, Hashable, Identifiable, Codable {
    /// A track's fields, kept once in a ``Box`` that copies of the track share (a batch's tables
    /// hold each track several times over).
    struct Fields: Sendable, Hashable {
        var id: Int
        var name: String
        var artist: String
        var album: String?
        var artworkURL: URL?
        var durationMs: Int?
        var previewURL: URL?
        var genre: String?
        var releaseDate: Date?
        var explicitness: Explicitness?
        var storeURL: URL?
        var trackNumber: Int?
        var trackCount: Int?
        var collectionId: Int?
        var artistId: Int?
        var discNumber: Int?
        var discCount: Int?
    }

    /// The shared, never-changed fields: a change to a track gives it a box of its own.
    final class Box: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    /// The catalog's `trackId`: the key for everything HalfTunes does with a track.
    public var id: Int {
        get { box.fields.id }
        set { change { $0.id = newValue } }
    }
    /// The track's title.
    public var name: String {
        get { box.fields.name }
        set { change { $0.name = newValue } }
    }
    /// The performing artist.
    public var artist: String {
        get { box.fields.artist }
        set { change { $0.artist = newValue } }
    }
    /// The album (the catalog's "collection").
    public var album: String? {
        get { box.fields.album }
        set { change { $0.album = newValue } }
    }
    /// Cover art, about 100×100 pixels.
    public var artworkURL: URL? {
        get { box.fields.artworkURL }
        set { change { $0.artworkURL = newValue } }
    }
    /// Length of the full track in milliseconds.
    public var durationMs: Int? {
        get { box.fields.durationMs }
        set { change { $0.durationMs = newValue } }
    }
    /// The 30-second preview; `nil` when the catalog gave none or gave one that is not http(s).
    public var previewURL: URL? {
        get { box.fields.previewURL }
        set { change { $0.previewURL = newValue } }
    }
    /// The primary genre, such as "Pop".
    public var genre: String? {
        get { box.fields.genre }
        set { change { $0.genre = newValue } }
    }
    /// When the track was released.
    public var releaseDate: Date? {
        get { box.fields.releaseDate }
        set { change { $0.releaseDate = newValue } }
    }
    /// Whether the lyrics are explicit, as the catalog rates them.
    public var explicitness: Explicitness? {
        get { box.fields.explicitness }
        set { change { $0.explicitness = newValue } }
    }
    /// The track's page in the store (the catalog's `trackViewUrl`): previews are the store's
    /// promotion, and its terms expect the link beside them.
    public var storeURL: URL? {
        get { box.fields.storeURL }
        set { change { $0.storeURL = newValue } }
    }
    /// The track's number on its album, when known.
    public var trackNumber: Int? {
        get { box.fields.trackNumber }
        set { change { $0.trackNumber = newValue } }
    }
    /// How many tracks its album has, when known.
    public var trackCount: Int? {
        get { box.fields.trackCount }
        set { change { $0.trackCount = newValue } }
    }

    /// The catalog's id of the track's album (`collectionId`): what ``ITunesCatalog/lookup(collection:)`` takes.
    public var collectionId: Int? {
        get { box.fields.collectionId }
        set { change { $0.collectionId = newValue } }
    }
    /// The catalog's id of the track's artist (`artistId`): what ``ITunesCatalog/lookup(artist:limit:)`` takes.
    public var artistId: Int? {
        get { box.fields.artistId }
        set { change { $0.artistId = newValue } }
    }
    /// The disc of its album the track is on, when known (1 for most albums).
    public var discNumber: Int? {
        get { box.fields.discNumber }
        set { change { $0.discNumber = newValue } }
    }
    /// How many discs its album has, when known.
    public var discCount: Int? {
        get { box.fields.discCount }
        set { change { $0.discCount = newValue } }
    }

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
        trackCount: Int? = nil,
        collectionId: Int? = nil,
        artistId: Int? = nil,
        discNumber: Int? = nil,
        discCount: Int? = nil
    ) {
        box = Box(
            Fields(
                id: id, name: name, artist: artist, album: album, artworkURL: artworkURL, durationMs: durationMs,
                previewURL: previewURL, genre: genre, releaseDate: releaseDate, explicitness: explicitness,
                storeURL: storeURL, trackNumber: trackNumber, trackCount: trackCount, collectionId: collectionId,
                artistId: artistId, discNumber: discNumber, discCount: discCount))
    }

    private mutating func change(_ edit: (inout Fields) -> Void) {
        var fields = box.fields
        edit(&fields)
        box = Box(fields)
    }

    /// Two tracks are equal when every field is.
    public static func == (lhs: Track, rhs: Track) -> Bool { lhs.box === rhs.box || lhs.box.fields == rhs.box.fields }

    /// Hashes every field.
    public func hash(into hasher: inout Hasher) { hasher.combine(box.fields) }

    /// Album order: disc, then track number (unknown ones last), then the id.
    public static func albumOrder(_ lhs: Track, _ rhs: Track) -> Bool {
        let left = (lhs.discNumber ?? 1, lhs.trackNumber ?? Int.max, lhs.id)
        let right = (rhs.discNumber ?? 1, rhs.trackNumber ?? Int.max, rhs.id)
        return left < right
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
        case collectionId, artistId, discNumber, discCount
        case downloadable
    }

    /// Decodes HalfTunes' own JSON form of a track (not the iTunes API's; see `SearchResponse`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        box = Box(
            Fields(
                id: try c.decode(Int.self, forKey: .id),
                name: try c.decode(String.self, forKey: .name),
                artist: try c.decode(String.self, forKey: .artist),
                album: try c.decodeIfPresent(String.self, forKey: .album),
                artworkURL: try c.decodeIfPresent(URL.self, forKey: .artworkURL),
                durationMs: try c.decodeIfPresent(Int.self, forKey: .durationMs),
                previewURL: try c.decodeIfPresent(URL.self, forKey: .previewURL),
                genre: try c.decodeIfPresent(String.self, forKey: .genre),
                releaseDate: try c.decodeIfPresent(Date.self, forKey: .releaseDate),
                explicitness: try c.decodeIfPresent(Explicitness.self, forKey: .explicitness),
                storeURL: try c.decodeIfPresent(URL.self, forKey: .storeURL),
                trackNumber: try c.decodeIfPresent(Int.self, forKey: .trackNumber),
                trackCount: try c.decodeIfPresent(Int.self, forKey: .trackCount),
                collectionId: try c.decodeIfPresent(Int.self, forKey: .collectionId),
                artistId: try c.decodeIfPresent(Int.self, forKey: .artistId),
                discNumber: try c.decodeIfPresent(Int.self, forKey: .discNumber),
                discCount: try c.decodeIfPresent(Int.self, forKey: .discCount)))
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
        try c.encode(collectionId, forKey: .collectionId)
        try c.encode(artistId, forKey: .artistId)
        try c.encode(discNumber, forKey: .discNumber)
        try c.encode(discCount, forKey: .discCount)
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
