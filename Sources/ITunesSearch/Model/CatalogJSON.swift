import Foundation

/// The body was not JSON (as Foundation's `JSONDecoder` would refuse it).
struct NotJSON: Error {}

/// A one-pass reader of JSON text, for the catalog's answers: it walks the body once, checks its
/// syntax as it goes, and turns into Swift values only the strings and numbers asked for.
///
/// It reads what Foundation's `JSONDecoder` reads (the decoder it replaced, and the oracle of its
/// tests), leniencies included: a UTF-8 byte-order mark, one trailing comma in an object or an
/// array, nesting up to 512 deep; a string's escapes and bytes, and a number's digits, are checked
/// only when its value is asked for (a bad one is then `nil`). A 200-track lookup answer decoded
/// with `JSONDecoder` cost ~60 k instructions a track; this reader leaves the time to the values.
struct CatalogJSON {
    /// How deep objects and arrays may nest.
    static let maxDepth = 512

    private let bytes: UnsafeRawBufferPointer
    private var at = 0
    private var depth = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { at = 3 }
    }

    /// The first byte of the next value (after white space).
    mutating func peek() throws(NotJSON) -> UInt8 {
        skipSpace()
        guard at < bytes.count else { throw NotJSON() }
        return bytes[at]
    }

    /// Checks that nothing but white space is left.
    mutating func finish() throws(NotJSON) {
        skipSpace()
        guard at == bytes.count else { throw NotJSON() }
    }

    /// Enters the object that starts here.
    mutating func beginObject() throws(NotJSON) { try enter(UInt8(ascii: "{")) }

    /// Enters the array that starts here.
    mutating func beginArray() throws(NotJSON) { try enter(UInt8(ascii: "[")) }

    /// The raw text of the object's next key (its `:` read), or `nil` at its end (then left).
    /// `first` is true until the first call: members after it come after a comma.
    mutating func nextKey(_ first: inout Bool) throws(NotJSON) -> Range<Int>? {
        guard try next(closing: UInt8(ascii: "}"), &first) else { return nil }
        guard try peek() == UInt8(ascii: "\"") else { throw NotJSON() }
        let key = try string()
        guard try peek() == UInt8(ascii: ":") else { throw NotJSON() }
        at += 1
        return key
    }

    /// Whether the array has another element (then read it), or is at its end (then left).
    mutating func nextElement(_ first: inout Bool) throws(NotJSON) -> Bool {
        try next(closing: UInt8(ascii: "]"), &first)
    }

    /// Reads the string that starts here, giving its raw text (between the quotes, unescaped
    /// later by ``text(_:)``), escapes passed over as `JSONDecoder` passes them.
    mutating func string() throws(NotJSON) -> Range<Int> {
        let start = at + 1
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                at = index + 1
                return start..<index
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { throw NotJSON() }
                guard bytes[index + 1] == UInt8(ascii: "u") else {
                    index += 2
                    continue
                }
                // `\u` takes the four bytes after it, hex digits or not (checked when read), but
                // none of them may be a quote: the string would end there, so it is not JSON.
                guard index + 6 <= bytes.count else { throw NotJSON() }
                for offset in 2..<6 where bytes[index + offset] == UInt8(ascii: "\"") { throw NotJSON() }
                index += 6
            default:
                index += 1
            }
        }
        throw NotJSON()
    }

    /// Reads the number that starts here (a `-` or a digit), giving its raw text: like
    /// `JSONDecoder`, any run of digits, signs, dots and exponents, checked by ``integer(_:)``.
    mutating func number() throws(NotJSON) -> Range<Int> {
        let start = at
        at += 1
        while at < bytes.count, Self.isNumberByte(bytes[at]) { at += 1 }
        return start..<at
    }

    /// Reads (checking) the value that starts here, whatever it is.
    mutating func skipValue() throws(NotJSON) {
        switch try peek() {
        case UInt8(ascii: "{"):
            try beginObject()
            var first = true
            while try nextKey(&first) != nil { try skipValue() }
        case UInt8(ascii: "["):
            try beginArray()
            var first = true
            while try nextElement(&first) { try skipValue() }
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try number()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: throw NotJSON()
        }
    }

    // MARK: Values

    /// The raw bytes of a string or number read before.
    func raw(_ range: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[range]) }

    /// A string's value: `nil` when an escape, a control character or a UTF-8 sequence in it is
    /// bad (as `JSONDecoder` refuses such a string when it is read).
    func text(_ range: Range<Int>) -> String? {
        var high: UInt8 = 0
        for index in range {
            let byte = bytes[index]
            if byte < 0x20 { return nil }
            if byte == UInt8(ascii: "\\") { return unescaped(range) }
            high |= byte
        }
        // ASCII needs no checking; other bytes must be UTF-8.
        if high < 0x80 { return String(decoding: raw(range), as: UTF8.self) }
        return String(validating: raw(range), as: UTF8.self)
    }

    /// A number's value as an `Int`, as `JSONDecoder` reads it: `nil` unless it is a JSON number
    /// whose `Double` is an integer (`30000`, `3e4` and `30000.0` are 30000; `1.5`, `01` and 2⁶³
    /// are not an `Int`), and past 2⁵³ read as a `Decimal` instead (see ``integer(pastDouble:)``).
    func integer(_ range: Range<Int>) -> Int? {
        let text = raw(range)
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { index += 1 }
        let digitsStart = index
        while index < text.count, Self.isDigit(text[index]) { index += 1 }
        let digits = index - digitsStart
        guard digits > 0, digits == 1 || text[digitsStart] != UInt8(ascii: "0") else { return nil }
        if index == text.count {
            var value = 0
            for digit in text[digitsStart..<index] {
                let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflowB) = times.subtractingReportingOverflow(Int(digit - UInt8(ascii: "0")))
                guard !overflowA, !overflowB else { return nil }
                value = sum
            }
            if negative { return value }
            return value == Int.min ? nil : -value
        }
        if text[index] == UInt8(ascii: ".") {
            index += 1
            let fraction = index
            while index < text.count, Self.isDigit(text[index]) { index += 1 }
            guard index > fraction else { return nil }
        }
        if index < text.count, text[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < text.count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
            let exponent = index
            while index < text.count, Self.isDigit(text[index]) { index += 1 }
            guard index > exponent else { return nil }
        }
        guard index == text.count else { return nil }
        let number = String(decoding: text, as: UTF8.self)
        guard let double = Double(number), let value = Int(exactly: double) else { return nil }
        return double.magnitude < 0x1p53 ? value : Self.integer(pastDouble: number)
    }

    /// A number past 2⁵³ (where a `Double` no longer tells integers apart) as `JSONDecoder` reads
    /// it into an `Int`: as a `Decimal`, `nil` unless its digits fit 64 bits, its fraction dropped
    /// (`123456789012345678.9` is 123456789012345678; `14444444444404444.44444`, whose 22 digits do
    /// not fit, is not an `Int`).
    static func integer(pastDouble number: String) -> Int? {
        guard let decimal = Decimal(string: number), !decimal.isNaN,
            var digits = UInt64(decimal.significand.magnitude.description)
        else { return nil }
        if decimal.exponent < 0 {
            for _ in 0 ..< -decimal.exponent { digits /= 10 }
        } else {
            for _ in 0..<decimal.exponent {
                let (scaled, overflow) = digits.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                digits = scaled
            }
        }
        guard let magnitude = Int(exactly: digits) else { return nil }
        return decimal.sign == .minus ? -magnitude : magnitude
    }

    // MARK: Internals

    private mutating func skipSpace() {
        while at < bytes.count {
            switch bytes[at] {
            case 0x20, 0x0A, 0x0D, 0x09: at += 1
            default: return
            }
        }
    }

    private mutating func enter(_ opening: UInt8) throws(NotJSON) {
        guard try peek() == opening, depth < Self.maxDepth else { throw NotJSON() }
        depth += 1
        at += 1
    }

    /// Past the comma before a container's next member, or past its closing bracket (`false`).
    private mutating func next(closing: UInt8, _ first: inout Bool) throws(NotJSON) -> Bool {
        var byte = try peek()
        if !first {
            if byte == closing {
                at += 1
                depth -= 1
                return false
            }
            guard byte == UInt8(ascii: ",") else { throw NotJSON() }
            at += 1
            byte = try peek()
            // One trailing comma is allowed, as JSONDecoder allows it.
            if byte == closing {
                at += 1
                depth -= 1
                return false
            }
        } else if byte == closing {
            at += 1
            depth -= 1
            return false
        }
        guard byte != UInt8(ascii: ","), byte != closing else { throw NotJSON() }
        first = false
        return true
    }

    private mutating func literal(_ word: StaticString) throws(NotJSON) {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count else { throw NotJSON() }
        for offset in 0..<count where bytes[at + offset] != word.utf8Start[offset] { throw NotJSON() }
        at += count
    }

    /// A string with escapes, decoded; `nil` when one is bad (a lone surrogate, `\x`).
    private func unescaped(_ range: Range<Int>) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = bytes[index]
            if byte < 0x20 { return nil }
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                index += 1
                continue
            }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard index + 4 <= range.upperBound, var scalar = codeUnit(at: index) else { return nil }
                index += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 6 <= range.upperBound, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u"),
                        let low = codeUnit(at: index + 2), (0xDC00...0xDFFF).contains(low)
                    else { return nil }
                    scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
                    index += 6
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    return nil
                }
                guard let unicode = Unicode.Scalar(scalar) else { return nil }
                out.append(contentsOf: UTF8.encode(unicode)!)
            default:
                return nil
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// The four hex digits at `index`, `nil` when they are not.
    private func codeUnit(at index: Int) -> UInt32? {
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard let digit = Self.hex(bytes[index + offset]) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-")
    }
}
