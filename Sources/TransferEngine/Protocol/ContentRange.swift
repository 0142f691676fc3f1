/// A parsed `Content-Range` header: `bytes first-last/total`, `bytes first-last/*` or `bytes */total`.
public struct ContentRange: Sendable, Hashable {
    /// The bytes this response carries, if any.
    public var range: ClosedRange<Int64>?
    /// The resource's full length, if the server gave it.
    public var total: Int64?

    /// Parses a header value; `nil` when it is not a valid byte Content-Range.
    ///
    /// Reads the UTF-8 bytes in place (the unit is matched without regard to case; numbers are
    /// ASCII digits, at most 18 of them), so parsing allocates nothing.
    public init?(_ header: String) {
        let space = UInt8(ascii: " ")
        var text = header.utf8.drop { $0 == space }
        let unit = "bytes ".utf8
        guard text.count > unit.count, zip(text, unit).allSatisfy({ Self.lowercased($0) == $1 }) else { return nil }
        text = text.dropFirst(unit.count).drop { $0 == space }
        guard let slash = text.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let rangePart = text[..<slash]
        var totalPart = text[text.index(after: slash)...]
        while totalPart.last == space { totalPart = totalPart.dropLast() }
        let star = UInt8(ascii: "*")
        if totalPart.count == 1, totalPart.first == star {
            total = nil
        } else {
            guard let value = Self.number(totalPart) else { return nil }
            total = value
        }
        if rangePart.count == 1, rangePart.first == star {
            guard total != nil else { return nil }
            range = nil
        } else {
            guard let dash = rangePart.firstIndex(of: UInt8(ascii: "-")),
                let first = Self.number(rangePart[..<dash]),
                let last = Self.number(rangePart[rangePart.index(after: dash)...]),
                first <= last
            else { return nil }
            if let total, last >= total { return nil }
            range = first...last
        }
    }

    private static func number(_ digits: Substring.UTF8View) -> Int64? {
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value: Int64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(digit - UInt8(ascii: "0"))
        }
        return value
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }
}
