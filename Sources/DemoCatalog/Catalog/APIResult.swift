import Foundation

/// A search result in the iTunes API's JSON shape.
struct APIResult: Encodable {
    var wrapperType = "track"
    var kind = "song"
    var artistId: Int
    var collectionId: Int
    var trackId: Int
    var artistName: String
    var collectionName: String
    var trackName: String
    var collectionCensoredName: String
    var trackCensoredName: String
    var previewUrl: String?
    var artworkUrl30: String
    var artworkUrl60: String
    var artworkUrl100: String
    var collectionPrice = 9.99
    var trackPrice = 0.99
    var releaseDate: String
    var collectionExplicitness = "notExplicit"
    var trackExplicitness: String
    var discCount = 1
    var discNumber = 1
    var trackNumber: Int
    var trackCount: Int
    var trackViewUrl: String
    var trackTimeMillis: Int
    var country: String
    var currency = "USD"
    var primaryGenreName: String
    var isStreamable = false

    /// - Parameter generation: The preview URL's generation (``DemoCatalog/expirePreviewURL(of:)``): `?g=N` when above 0.
    init(_ track: DemoTrack, baseURL: String, country: String, generation: Int = 0) {
        artistId = track.artistId
        collectionId = track.collectionId
        trackId = track.id
        artistName = track.artist
        collectionName = track.album
        trackName = track.name
        collectionCensoredName = track.album
        trackCensoredName = track.name
        previewUrl = track.hasPreview ? "\(baseURL)/previews/\(track.id).wav" + (generation > 0 ? "?g=\(generation)" : "") : nil
        artworkUrl30 = "\(baseURL)/artwork/\(track.id)/30x30bb.svg"
        artworkUrl60 = "\(baseURL)/artwork/\(track.id)/60x60bb.svg"
        artworkUrl100 = "\(baseURL)/artwork/\(track.id)/100x100bb.svg"
        releaseDate = track.releaseDate
        trackExplicitness = track.explicitness
        trackNumber = track.trackNumber
        trackCount = track.trackCount
        discNumber = track.discNumber
        discCount = track.discCount
        if track.isMusicVideo {
            kind = "music-video"
            previewUrl = "\(baseURL)/previews/\(track.id).m4v"
        }
        trackViewUrl = "\(baseURL)/store/\(track.id)"
        trackTimeMillis = track.durationMs
        self.country = country
        primaryGenreName = track.genre
    }
}

/// An album in the API's JSON shape (`wrapperType: collection`).
struct APICollection: Encodable {
    var wrapperType = "collection"
    var collectionType = "Album"
    var artistId: Int
    var collectionId: Int
    var artistName: String
    var collectionName: String
    var collectionCensoredName: String
    var artistViewUrl: String
    var collectionViewUrl: String
    var artworkUrl60: String
    var artworkUrl100: String
    var collectionPrice = 9.99
    var collectionExplicitness: String
    var trackCount: Int
    var copyright: String
    var country = "USA"
    var currency = "USD"
    var releaseDate: String
    var primaryGenreName: String

    /// The album of `tracks` (its songs and videos, the first song's details standing for the album's).
    init(_ tracks: [DemoTrack], baseURL: String) {
        let first = tracks[0]
        artistId = first.artistId
        collectionId = first.collectionId
        artistName = first.artist
        collectionName = first.album
        collectionCensoredName = first.album
        artistViewUrl = "\(baseURL)/store/artist/\(first.artistId)"
        collectionViewUrl = "\(baseURL)/store/album/\(first.collectionId)"
        artworkUrl60 = "\(baseURL)/artwork/\(first.id)/60x60bb.svg"
        artworkUrl100 = "\(baseURL)/artwork/\(first.id)/100x100bb.svg"
        collectionExplicitness = tracks.contains { $0.explicitness == "explicit" } ? "explicit" : "notExplicit"
        trackCount = tracks.count
        copyright = "℗ \(first.releaseDate.prefix(4)) \(first.artist) (a HalfTunes demo)"
        releaseDate = first.releaseDate
        primaryGenreName = first.genre
    }
}

/// An artist in the API's JSON shape.
struct APIArtist: Encodable {
    var wrapperType = "artist"
    var artistType = "Artist"
    var artistName: String
    var artistLinkUrl: String
    var artistId: Int
    var primaryGenreName: String

    init(_ track: DemoTrack, baseURL: String) {
        artistName = track.artist
        artistLinkUrl = "\(baseURL)/store/artist/\(track.artistId)"
        artistId = track.artistId
        primaryGenreName = track.genre
    }
}

/// One element of `results`: a track, an album or an artist.
enum APIRow: Encodable {
    case track(APIResult)
    case collection(APICollection)
    case artist(APIArtist)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .track(let row): try row.encode(to: encoder)
        case .collection(let row): try row.encode(to: encoder)
        case .artist(let row): try row.encode(to: encoder)
        }
    }
}

/// The whole body: `{"resultCount": n, "results": [...]}`.
struct APIResponse: Encodable {
    var resultCount: Int
    var results: [APIRow]
}

/// The body the API sends with HTTP 400.
struct APIErrorResponse: Encodable {
    var errorMessage: String
    var queryParameters: [String: String] = [
        "output": "json", "callback": "A javascript function to handle your search results",
        "country": "ISO-2A country code", "limit": "The number of search results to return",
        "term": "A search string", "lang": "ISO-2A language code",
    ]
}
