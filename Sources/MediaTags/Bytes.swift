/// Big- and little-endian integers in and out of byte arrays, bounds-checked by the callers.
extension Array where Element == UInt8 {
    func uint32BE(at offset: Int) -> UInt32 {
        self[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    func uint64BE(at offset: Int) -> UInt64 {
        self[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }

    func uint32LE(at offset: Int) -> UInt32 {
        self[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func setUInt32BE(_ value: UInt32, at offset: Int) {
        for index in 0..<4 { self[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
    }

    mutating func setUInt64BE(_ value: UInt64, at offset: Int) {
        for index in 0..<8 { self[offset + index] = UInt8(truncatingIfNeeded: value >> (56 - 8 * index)) }
    }

    mutating func appendUInt32BE(_ value: UInt32) {
        append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) })
    }

    mutating func appendUInt16BE(_ value: UInt16) {
        append(contentsOf: [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)])
    }

    mutating func appendUInt32LE(_ value: UInt32) {
        append(contentsOf: [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) })
    }

    /// A four-character code's bytes (`"moov"`, `"©nam"`: the `©` is one byte, 0xA9).
    static func fourCC(_ code: String) -> [UInt8] {
        let bytes = code.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        precondition(bytes.count == 4, "a four-character code has four characters")
        return bytes
    }
}

/// A four-character code as text, for messages (`©` shown as itself).
func fourCCText(_ bytes: ArraySlice<UInt8>) -> String {
    String(bytes.map { $0 >= 0x20 && $0 < 0x7F || $0 == 0xA9 ? Character(Unicode.Scalar($0)) : "?" })
}
