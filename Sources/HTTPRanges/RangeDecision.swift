/// What to answer to a GET given its `Range` and `If-Range` headers (RFC 9110 §14): the one
/// parser of `Range:` of both servers, the DemoCatalog's previews and the library's files.
///
/// Pure: tested without a server, and fuzzed (`Fuzz/`).
public enum RangeDecision: Sendable, Hashable {
    /// 200 with the whole representation.
    case full
    /// 206 with these bytes.
    case partial(ClosedRange<Int>)
    /// 416 with `Content-Range: bytes */length`.
    case unsatisfiable

    /// Decides how to answer.
    ///
    /// - Parameters:
    ///   - range: The `Range` header, if any. A malformed or multi-range one is ignored (200).
    ///   - ifRange: The `If-Range` header, if any: a strong ETag or an HTTP date that must match
    ///     exactly, or the range is ignored (200).
    ///   - etag: The representation's current strong ETag, quotes included.
    ///   - lastModified: The representation's `Last-Modified` value.
    ///   - length: The representation's length in bytes.
    public static func decide(
        range: String?, ifRange: String?, etag: String, lastModified: String, length: Int
    ) -> RangeDecision {
        guard let range else { return .full }
        if let ifRange {
            let validator = ifRange.trimmingSpaces
            // A weak ETag never matches (If-Range requires strong comparison).
            guard validator == etag || validator == lastModified, !validator.hasPrefix("W/") else { return .full }
        }
        guard let spec = ByteRangeSpec(range) else { return .full }
        switch spec {
        case .from(let first, let last):
            guard first < length else { return .unsatisfiable }
            return .partial(first...min(last ?? (length - 1), length - 1))
        case .suffix(let count):
            guard count > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - count)...(length - 1))
        }
    }
}

extension RangeDecision {
    /// How to answer a `Range` header for a representation of `length` bytes that has no
    /// validator (a file still being downloaded): as ``decide(range:ifRange:etag:lastModified:length:)``
    /// without `If-Range`.
    public static func decide(range: String?, length: Int) -> RangeDecision {
        decide(range: range, ifRange: nil, etag: "", lastModified: "", length: length)
    }
}

/// One byte range from a `Range: bytes=…` header.
enum ByteRangeSpec: Hashable {
    /// `first-` or `first-last`.
    case from(Int, Int?)
    /// `-count`: the last `count` bytes.
    case suffix(Int)

    init?(_ header: String) {
        let header = header.trimmingSpaces
        guard header.lowercased().hasPrefix("bytes=") else { return nil }
        let set = header.dropFirst("bytes=".count)
        guard !set.contains(","), let dash = set.firstIndex(of: "-") else { return nil }
        let firstText = set[..<dash].trimmingSpaces
        let lastText = set[set.index(after: dash)...].trimmingSpaces
        if firstText.isEmpty {
            guard let count = Self.number(lastText) else { return nil }
            self = .suffix(count)
        } else {
            guard let first = Self.number(firstText) else { return nil }
            if lastText.isEmpty {
                self = .from(first, nil)
            } else {
                guard let last = Self.number(lastText), last >= first else { return nil }
                self = .from(first, last)
            }
        }
    }

    private static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text)
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
