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
        guard !isUTF16Or32(body) else { throw .malformedResponse(reason: "the body is not valid JSON") }
        do {
            return try JSONInput.decode(Envelope.self, from: body).results.compactMap(\.track)
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

    /// One element of `results`: a song, or `nil` for artists, albums, videos and results
    /// without an id.
    private struct Result: Decodable {
        var track: Track?

        private enum Key: String, CodingKey {
            case wrapperType, kind, trackId, trackName, trackCensoredName, artistName, collectionName
            case artworkUrl100, artworkUrl60, artworkUrl30, trackTimeMillis, previewUrl
            case primaryGenreName, releaseDate, trackExplicitness, trackViewUrl, trackNumber, trackCount
        }

        init(from decoder: any Decoder) {
            guard let c = try? decoder.container(keyedBy: Key.self) else { return }
            func string(_ key: Key) -> String? {
                guard let value = try? c.decodeIfPresent(String.self, forKey: key) else { return nil }
                return value.isEmpty ? nil : value
            }
            func integer(_ key: Key) -> Int? { (try? c.decodeIfPresent(Int.self, forKey: key)) ?? nil }
            func positive(_ key: Key) -> Int? { integer(key).flatMap { $0 > 0 ? $0 : nil } }
            // Lookup can answer with artists and albums, Search with music videos: only songs count.
            if let wrapperType = string(.wrapperType), wrapperType != "track" { return }
            if let kind = string(.kind), kind != "song" { return }
            guard let id = integer(.trackId), id > 0 else { return }
            // URLs only http(s) with a host: a catalog must never make HalfTunes open a file or an odd scheme.
            track = Track(
                id: id,
                name: string(.trackName) ?? string(.trackCensoredName) ?? "Untitled",
                artist: string(.artistName) ?? "Unknown Artist",
                album: string(.collectionName),
                artworkURL: (string(.artworkUrl100) ?? string(.artworkUrl60) ?? string(.artworkUrl30))
                    .flatMap(URLPolicy.webURL),
                durationMs: integer(.trackTimeMillis),
                previewURL: string(.previewUrl).flatMap(URLPolicy.webURL),
                genre: string(.primaryGenreName),
                releaseDate: string(.releaseDate).flatMap { try? Date($0, strategy: .iso8601) },
                explicitness: string(.trackExplicitness).flatMap(Explicitness.init(rawValue:)),
                storeURL: string(.trackViewUrl).flatMap(URLPolicy.webURL),
                trackNumber: positive(.trackNumber),
                trackCount: positive(.trackCount))
        }
    }
}
