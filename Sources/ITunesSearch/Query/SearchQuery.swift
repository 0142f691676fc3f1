import Foundation

/// A song search: what `GET /search` is asked.
///
/// Always `media=music&entity=song`. The term is form-encoded byte by byte, so `&`, `=`, `+`, `#`,
/// `%` and any Unicode reach the API as the user typed them.
public struct SearchQuery: Sendable, Hashable {
    /// The most results the API returns for one search.
    public static let limitRange = 1...200

    /// What the user typed, trimmed.
    public let term: String
    /// Two-letter store country, upper case (`US`, `JP`).
    public let country: String
    /// How many results to ask for (1…200).
    public let limit: Int
    /// Which field the term is matched against (`attribute`); `nil`: all of them.
    public var field: Field?
    /// Whether explicit songs are included (`explicit=Yes|No`); `nil`: the API's default (yes).
    public var explicit: Bool?
    /// The language of the answers' texts (`lang`): `en_us` or `ja_jp`.
    public var language: String?
    /// How many results to skip (`offset`): the next page.
    public var offset: Int?

    /// The fields a term can be matched against alone.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        case song, artist, album

        /// The API's `attribute` value.
        public var attribute: String {
            switch self {
            case .song: "songTerm"
            case .artist: "artistTerm"
            case .album: "albumTerm"
            }
        }
    }

    /// The languages the API answers in.
    public static let languages: Set<String> = ["en_us", "ja_jp"]

    /// Creates a validated query.
    ///
    /// - Throws: ``CatalogError/Code/invalidQuery`` for an empty term, a limit outside 1…200 or a
    ///   country that is not two letters.
    public init(term: String, country: String = "US", limit: Int = 50) throws(CatalogError) {
        let trimmed = term.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalidQuery("the search term is empty") }
        guard trimmed.utf8.count <= 500 else { throw .invalidQuery("the search term is longer than 500 bytes") }
        guard Self.limitRange.contains(limit) else {
            throw .invalidQuery("the limit must be between 1 and 200, not \(limit)")
        }
        guard country.count == 2, country.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic })
        else { throw .invalidQuery("the country must be a two-letter code such as US, not \"\(country)\"") }
        self.term = trimmed
        self.country = country.uppercased()
        self.limit = limit
    }

    /// Creates a validated query with the API's filters.
    ///
    /// - Throws: ``CatalogError/Code/invalidQuery`` as the other initializer does, and for a
    ///   language other than `en_us` or `ja_jp` or a negative offset.
    public init(
        term: String, country: String = "US", limit: Int = 50, field: Field?, explicit: Bool? = nil,
        language: String? = nil, offset: Int? = nil
    ) throws(CatalogError) {
        try self.init(term: term, country: country, limit: limit)
        if let language, !Self.languages.contains(language.lowercased()) {
            throw .invalidQuery("the language must be en_us or ja_jp, not \"\(language)\"")
        }
        if let offset, offset < 0 { throw .invalidQuery("the offset must be 0 or more, not \(offset)") }
        (self.field, self.explicit, self.language, self.offset) = (field, explicit, language?.lowercased(), offset)
    }

    /// The query string, without the leading `?`.
    public var queryString: String {
        [
            ("term", term), ("country", country), ("media", "music"), ("entity", "song"),
            ("limit", String(limit)),
        ]
        .appending(field.map { ("attribute", $0.attribute) })
        .appending(explicit.map { ("explicit", $0 ? "Yes" : "No") })
        .appending(language.map { ("lang", $0) })
        .appending(offset.map { ("offset", String($0)) })
        .map { "\($0)=\(FormEncoding.encode($1))" }
        .joined(separator: "&")
    }
}

/// `application/x-www-form-urlencoded` encoding as the iTunes API documents it: spaces as `+`.
public enum FormEncoding {
    /// Encodes every byte except ASCII letters, digits and `-._~`; a space becomes `+`.
    public static func encode(_ value: String) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out.append("+")
            default:
                out.append("%")
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return out
    }

    private static let hexDigits = Array("0123456789ABCDEF")
}

extension Array {
    fileprivate func appending(_ element: Element?) -> [Element] { element.map { self + [$0] } ?? self }
}
