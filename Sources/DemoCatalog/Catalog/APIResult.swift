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
        trackViewUrl = "\(baseURL)/store/\(track.id)"
        trackTimeMillis = track.durationMs
        self.country = country
        primaryGenreName = track.genre
    }
}

/// The whole body: `{"resultCount": n, "results": [...]}`.
struct APIResponse: Encodable {
    var resultCount: Int
    var results: [APIResult]
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
