/// A parsed `Content-Range` header: `bytes first-last/total`, `bytes first-last/*` or `bytes */total`.
public struct ContentRange: Sendable, Hashable {
    /// The bytes this response carries, if any.
    public var range: ClosedRange<Int64>?
    /// The resource's full length, if the server gave it.
    public var total: Int64?

    /// Parses a header value; `nil` when it is not a valid byte Content-Range.
    public init?(_ header: String) {
        var text = Substring(header).drop { $0 == " " }
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        text = text.dropFirst("bytes ".count).drop { $0 == " " }
        guard let slash = text.firstIndex(of: "/") else { return nil }
        let rangePart = text[..<slash]
        let totalPart = text[text.index(after: slash)...].trimmingSuffix(" ")
        if totalPart == "*" {
            total = nil
        } else {
            guard let value = Self.number(totalPart) else { return nil }
            total = value
        }
        if rangePart == "*" {
            guard total != nil else { return nil }
            range = nil
        } else {
            guard let dash = rangePart.firstIndex(of: "-"),
                let first = Self.number(rangePart[..<dash]),
                let last = Self.number(rangePart[rangePart.index(after: dash)...]),
                first <= last
            else { return nil }
            if let total, last >= total { return nil }
            range = first...last
        }
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text)
    }
}

extension Substring {
    fileprivate func trimmingSuffix(_ character: Character) -> Substring {
        var result = self
        while result.last == character { result = result.dropLast() }
        return result
    }
}
