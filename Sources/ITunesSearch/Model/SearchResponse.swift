import Foundation
import NetworkBasics

/// Decodes the body the iTunes Search and Lookup APIs answer with.
///
/// Decoding is lenient where the catalog is loose (missing or oddly typed fields, results that are
/// not songs: each bad field costs only that field) and strict where a response is simply not one
/// (not JSON, not UTF-8, no `results` list).
public enum SearchResponse {
    /// Decodes the songs in a Search or Lookup response body.
    ///
    /// - Throws: ``CatalogError/malformedResponse`` saying what was wrong, or
    ///   ``CatalogError/badRequest`` when the body is the API's `{"errorMessage": …}`.
    public static func decodeTracks(from body: Data) throws(CatalogError) -> [Track] {
        try decodeAnswer(from: body).tracks
    }

    /// Decodes every song, album and artist in a Search or Lookup response body, in the answer's
    /// order (music videos, podcasts and other kinds left out).
    ///
    /// - Throws: as ``decodeTracks(from:)``.
    public static func decodeAnswer(from body: Data) throws(CatalogError) -> CatalogAnswer {
        guard !isUTF16Or32(body) else { throw .malformedResponse(reason: "the body is not valid JSON") }
        do {
            var answer = CatalogAnswer()
            for result in try JSONInput.decode(Envelope.self, from: body).results {
                switch result {
                case .track(let track): answer.tracks.append(track)
                case .album(let album): answer.albums.append(album)
                case .artist(let artist): answer.artists.append(artist)
                case .other: break
                }
            }
            return answer
        } catch let error as DecodingError {
            if let message = errorMessage(in: body) { throw .badRequest(message: message) }
            throw .malformedResponse(reason: describe(error))
        } catch {
            throw .malformedResponse(reason: "\(error)")
        }
    }

    /// The API's `errorMessage` in a body (what it answers an HTTP 400 with), if it has one.
    static func errorMessage(in body: Data) -> String? {
        guard !isUTF16Or32(body) else { return nil }
        return try? JSONInput.decode(ErrorBody.self, from: body).errorMessage
    }

    /// Whether a body's first bytes say UTF-16 or UTF-32 (a byte-order mark of one, or a zero
    /// byte among the first four: RFC 4627's test). The API answers in UTF-8, as RFC 8259 asks
    /// of JSON between systems; such a body is refused as not JSON.
    static func isUTF16Or32(_ body: Data) -> Bool {
        body.prefix(4).contains(0) || body.starts(with: [0xFE, 0xFF]) || body.starts(with: [0xFF, 0xFE])
    }

    private struct Envelope: Decodable {
        var results: [Result]
    }

    private struct ErrorBody: Decodable {
        var errorMessage: String
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "the body is not valid JSON"
        case .keyNotFound(let key, _):
            return "the JSON has no \"\(key.stringValue)\" field"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "\"\(path.isEmpty ? "the body" : path)\" has the wrong type"
        case .dataCorrupted(let context):
            return context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }

    /// One element of `results`: a song, an album, an artist, or something else (a music video,
    /// a result without an id).
    private enum Result: Decodable {
        case track(Track)
        case album(Album)
        case artist(Artist)
        case other

        private enum Key: String, CodingKey {
            case wrapperType, kind, trackId, trackName, trackCensoredName, artistName, collectionName
            case collectionCensoredName, artworkUrl100, artworkUrl60, artworkUrl30, trackTimeMillis, previewUrl
            case primaryGenreName, releaseDate, trackExplicitness, trackViewUrl, trackNumber, trackCount
            case collectionId, artistId, discNumber, discCount, collectionExplicitness, collectionViewUrl
            case copyright, artistLinkUrl, artistViewUrl
        }

        init(from decoder: any Decoder) {
            guard let c = try? decoder.container(keyedBy: Key.self) else {
                self = .other
                return
            }
            func string(_ key: Key) -> String? {
                guard let value = try? c.decodeIfPresent(String.self, forKey: key) else { return nil }
                return value.isEmpty ? nil : value
            }
            func integer(_ key: Key) -> Int? { (try? c.decodeIfPresent(Int.self, forKey: key)) ?? nil }
            func positive(_ key: Key) -> Int? { integer(key).flatMap { $0 > 0 ? $0 : nil } }
            // URLs only http(s) with a host: a catalog must never make HalfTunes open a file or an odd scheme.
            func web(_ key: Key) -> URL? { string(key).flatMap(URLPolicy.webURL) }
            let artwork = web(.artworkUrl100) ?? web(.artworkUrl60) ?? web(.artworkUrl30)
            let released = string(.releaseDate).flatMap { try? Date($0, strategy: .iso8601) }
            switch string(.wrapperType) {
            case "collection":
                guard let id = positive(.collectionId) else {
                    self = .other
                    return
                }
                self = .album(
                    Album(
                        id: id, name: string(.collectionName) ?? string(.collectionCensoredName) ?? "Untitled",
                        artist: string(.artistName) ?? "Unknown Artist", artistId: positive(.artistId), artworkURL: artwork,
                        releaseDate: released, trackCount: positive(.trackCount), genre: string(.primaryGenreName),
                        explicitness: string(.collectionExplicitness).flatMap(Explicitness.init(rawValue:)),
                        storeURL: web(.collectionViewUrl), copyright: string(.copyright)))
            case "artist":
                guard let id = positive(.artistId), let name = string(.artistName) else {
                    self = .other
                    return
                }
                self = .artist(
                    Artist(
                        id: id, name: name, genre: string(.primaryGenreName),
                        storeURL: web(.artistLinkUrl) ?? web(.artistViewUrl)))
            case "track", nil:
                // Search can answer with music videos, an album's lookup too: only songs count.
                if let kind = string(.kind), kind != "song" {
                    self = .other
                    return
                }
                guard let id = integer(.trackId), id > 0 else {
                    self = .other
                    return
                }
                self = .track(
                    Track(
                        id: id,
                        name: string(.trackName) ?? string(.trackCensoredName) ?? "Untitled",
                        artist: string(.artistName) ?? "Unknown Artist",
                        album: string(.collectionName),
                        artworkURL: artwork,
                        durationMs: integer(.trackTimeMillis),
                        previewURL: web(.previewUrl),
                        genre: string(.primaryGenreName),
                        releaseDate: released,
                        explicitness: string(.trackExplicitness).flatMap(Explicitness.init(rawValue:)),
                        storeURL: web(.trackViewUrl),
                        trackNumber: positive(.trackNumber),
                        trackCount: positive(.trackCount),
                        collectionId: positive(.collectionId),
                        artistId: positive(.artistId),
                        discNumber: positive(.discNumber),
                        discCount: positive(.discCount)))
            default:
                self = .other
            }
        }
    }
}

/// What one Search or Lookup call answered: its songs, albums and artists, each in the answer's order.
public struct CatalogAnswer: Sendable, Hashable {
    /// The songs.
    public var tracks: [Track] = []
    /// The albums (`wrapperType: collection`).
    public var albums: [Album] = []
    /// The artists.
    public var artists: [Artist] = []

    /// An answer.
    public init(tracks: [Track] = [], albums: [Album] = [], artists: [Artist] = []) {
        (self.tracks, self.albums, self.artists) = (tracks, albums, artists)
    }
}
