import Foundation
import NetworkBasics

#if canImport(ITunesSearch)
    @testable import ITunesSearch
#endif

/// The catalog decoder HalfTunes had before its one-pass reader: Foundation's `JSONDecoder`, a
/// result decoded field by field (through `JSONInput`, which keeps `JSONDecoder` from the one input
/// it crashes on). Kept here as the oracle the reader is held to (and symlinked
/// into the fuzz target, which holds the two to each other on whatever bytes it makes).
enum FoundationDecoder {
    /// What the old decoder made of a body: its tracks, or its error's code and message.
    static func outcome(_ body: Data) -> DecodingOutcome {
        do {
            let envelope = try JSONInput.decode(Envelope.self, from: body)
            return .tracks(envelope.results.compactMap(\.track))
        } catch let error as DecodingError {
            if let message = try? JSONInput.decode(ErrorBody.self, from: body).errorMessage {
                return .failure(.badRequest, CatalogError.badRequest(message: message).message)
            }
            return .failure(.malformedResponse, CatalogError.malformedResponse(reason: describe(error)).message)
        } catch {
            return .failure(.malformedResponse, "\(error)")
        }
    }

    /// Whether `JSONDecoder` would read the body as UTF-16 or UTF-32, which HalfTunes refuses
    /// (``SearchResponse/isUTF16Or32(_:)``): the two decoders are compared on the others.
    static func readsAsOtherEncoding(_ body: Data) -> Bool { SearchResponse.isUTF16Or32(body) }

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
            if let wrapperType = string(.wrapperType), wrapperType != "track" { return }
            if let kind = string(.kind), kind != "song" { return }
            guard let id = integer(.trackId), id > 0 else { return }
            track = Track(
                id: id,
                name: string(.trackName) ?? string(.trackCensoredName) ?? "Untitled",
                artist: string(.artistName) ?? "Unknown Artist",
                album: string(.collectionName),
                artworkURL: (string(.artworkUrl100) ?? string(.artworkUrl60) ?? string(.artworkUrl30)).flatMap(webURL),
                durationMs: integer(.trackTimeMillis),
                previewURL: string(.previewUrl).flatMap(webURL),
                genre: string(.primaryGenreName),
                releaseDate: string(.releaseDate).flatMap { try? Date($0, strategy: .iso8601) },
                explicitness: string(.trackExplicitness).flatMap(Explicitness.init(rawValue:)),
                storeURL: string(.trackViewUrl).flatMap(webURL),
                trackNumber: integer(.trackNumber).flatMap { $0 > 0 ? $0 : nil },
                trackCount: integer(.trackCount).flatMap { $0 > 0 ? $0 : nil })
        }

        private func webURL(_ string: String) -> URL? {
            guard let url = URL(string: string), URLPolicy.problem(with: url) == nil else { return nil }
            return url
        }
    }
}

/// What a decoder made of a body.
enum DecodingOutcome: Equatable, CustomStringConvertible {
    case tracks([Track])
    case failure(CatalogError.Code, String)

    /// What HalfTunes' own decoder makes of a body.
    static func current(_ body: Data) -> DecodingOutcome {
        do {
            return .tracks(try SearchResponse.decodeTracks(from: body))
        } catch {
            return .failure(error.code, error.message)
        }
    }

    var description: String {
        switch self {
        case .tracks(let tracks): "\(tracks.count) tracks \(tracks.map(\.id))"
        case .failure(let code, let message): "\(code): \(message)"
        }
    }
}
