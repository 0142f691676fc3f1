import Foundation

/// An album in the iTunes catalog (the API's `collection`).
public struct Album: Sendable, Hashable, Identifiable, Codable {
    /// The catalog's `collectionId`.
    public var id: Int
    /// The title, such as "Harbour Lights" or "Nightmare·Escape The ERA - EP".
    public var name: String
    /// The album's artist ("Various Artists" for a compilation).
    public var artist: String
    /// The artist's `artistId`, when the catalog gives one.
    public var artistId: Int?
    /// Cover art, about 100×100 pixels.
    public var artworkURL: URL?
    /// When it was released.
    public var releaseDate: Date?
    /// How many tracks the album has, as the catalog counts them (a lookup may answer with fewer:
    /// the store leaves out what it cannot sell).
    public var trackCount: Int?
    /// The primary genre.
    public var genre: String?
    /// The album's rating for explicit content.
    public var explicitness: Explicitness?
    /// The album's page in the store (`collectionViewUrl`).
    public var storeURL: URL?
    /// The copyright line, as the store shows it.
    public var copyright: String?

    /// Creates an album from its parts.
    public init(
        id: Int, name: String, artist: String, artistId: Int? = nil, artworkURL: URL? = nil, releaseDate: Date? = nil,
        trackCount: Int? = nil, genre: String? = nil, explicitness: Explicitness? = nil, storeURL: URL? = nil,
        copyright: String? = nil
    ) {
        (self.id, self.name, self.artist, self.artistId, self.artworkURL) = (id, name, artist, artistId, artworkURL)
        (self.releaseDate, self.trackCount, self.genre, self.explicitness) = (releaseDate, trackCount, genre, explicitness)
        (self.storeURL, self.copyright) = (storeURL, copyright)
    }

    /// The year it was released, when known.
    public var year: Int? { releaseDate.map { Calendar(identifier: .gregorian).component(.year, from: $0) } }
}

/// An artist in the iTunes catalog.
public struct Artist: Sendable, Hashable, Identifiable, Codable {
    /// The catalog's `artistId`.
    public var id: Int
    /// The artist's name.
    public var name: String
    /// The primary genre.
    public var genre: String?
    /// The artist's page in the store (`artistLinkUrl` or `artistViewUrl`).
    public var storeURL: URL?

    /// Creates an artist from its parts.
    public init(id: Int, name: String, genre: String? = nil, storeURL: URL? = nil) {
        (self.id, self.name, self.genre, self.storeURL) = (id, name, genre, storeURL)
    }
}

/// An album and its songs, as ``ITunesCatalog/lookup(collection:)`` answers.
public struct AlbumListing: Sendable, Hashable {
    /// The album.
    public var album: Album
    /// Its songs in disc and track order (music videos left out).
    public var tracks: [Track]

    /// An album and its songs.
    public init(album: Album, tracks: [Track]) { (self.album, self.tracks) = (album, tracks) }
}

/// An artist and their songs, as ``ITunesCatalog/lookup(artist:limit:)`` answers.
public struct ArtistListing: Sendable, Hashable {
    /// The artist.
    public var artist: Artist
    /// Their songs, newest first (music videos left out).
    public var tracks: [Track]

    /// An artist and their songs.
    public init(artist: Artist, tracks: [Track]) { (self.artist, self.tracks) = (artist, tracks) }
}
