import Foundation
import NetworkBasics

/// Decodes the body the iTunes Search and Lookup APIs answer with.
///
/// Decoding is lenient where the catalog is loose (missing or oddly typed fields, results that are
/// not songs) and strict where a response is simply not one (not JSON, no `results` list).
public enum SearchResponse {
    /// Decodes the songs in a Search or Lookup response body.
    ///
    /// - Throws: ``CatalogError/malformedResponse`` saying what was wrong, or
    ///   ``CatalogError/badRequest`` when the body is the API's `{"errorMessage": …}`.
    public static func decodeTracks(from body: Data) throws(CatalogError) -> [Track] {
        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: body)
        } catch let error as DecodingError {
            if let message = try? JSONDecoder().decode(APIErrorBody.self, from: body).errorMessage {
                throw .badRequest(message: message)
            }
            throw .malformedResponse(reason: describe(error))
        } catch {
            throw .malformedResponse(reason: "\(error)")
        }
        return envelope.results.compactMap(\.track)
    }

    private struct Envelope: Decodable {
        var results: [LenientResult]
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
}

/// The body the API sends with HTTP 400: `{"errorMessage": "...", "queryParameters": {...}}`.
struct APIErrorBody: Decodable {
    var errorMessage: String
}

/// One element of `results`, decoded field by field so a bad field costs only that field.
struct LenientResult: Decodable {
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
        // Lookup can answer with artists and albums, Search with music videos: only songs count.
        if let wrapperType = string(.wrapperType), wrapperType != "track" { return }
        if let kind = string(.kind), kind != "song" { return }
        guard let id = try? c.decodeIfPresent(Int.self, forKey: .trackId), id > 0 else { return }

        track = Track(
            id: id,
            name: string(.trackName) ?? string(.trackCensoredName) ?? "Untitled",
            artist: string(.artistName) ?? "Unknown Artist",
            album: string(.collectionName),
            artworkURL: (string(.artworkUrl100) ?? string(.artworkUrl60) ?? string(.artworkUrl30))
                .flatMap(Self.webURL),
            durationMs: (try? c.decodeIfPresent(Int.self, forKey: .trackTimeMillis)) ?? nil,
            previewURL: string(.previewUrl).flatMap(Self.webURL),
            genre: string(.primaryGenreName),
            releaseDate: string(.releaseDate).flatMap(Self.parseDate),
            explicitness: string(.trackExplicitness).flatMap(Explicitness.init(rawValue:)),
            storeURL: string(.trackViewUrl).flatMap(Self.webURL),
            trackNumber: Self.positive((try? c.decodeIfPresent(Int.self, forKey: .trackNumber)) ?? nil),
            trackCount: Self.positive((try? c.decodeIfPresent(Int.self, forKey: .trackCount)) ?? nil)
        )
    }

    /// A number that means something only when positive (a track number, a count).
    static func positive(_ value: Int?) -> Int? { value.flatMap { $0 > 0 ? $0 : nil } }

    /// Only http(s) URLs with a host: a catalog must never make HalfTunes open a file or odd scheme.
    static func webURL(_ string: String) -> URL? {
        guard let url = URL(string: string), URLPolicy.problem(with: url) == nil else { return nil }
        return url
    }

    static func parseDate(_ string: String) -> Date? {
        try? Date(string, strategy: .iso8601)
    }
}
