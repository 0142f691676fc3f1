import Foundation

/// The fuzzer's bytes read as choices: structure-aware targets build a file from them (which boxes,
/// which sizes, which values) instead of handing them over raw. Past the end every choice is 0.
public struct Recipe {
    private let bytes: [UInt8]
    private var at = 0

    public init(_ start: UnsafeRawPointer, _ count: Int) {
        bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// Whether choices are left.
    public var isEmpty: Bool { at >= bytes.count }

    /// The next byte.
    public mutating func byte() -> UInt8 {
        defer { at += 1 }
        return at < bytes.count ? bytes[at] : 0
    }

    /// A choice among `count`.
    public mutating func choice(_ count: Int) -> Int { Int(byte()) % count }

    /// The next `count` bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in byte() } }

    /// A 64-bit value, most often one at an edge: 0, 1, a small number, 2^31, 2^32 - 1, 2^63 - 1,
    /// 2^63, 2^64 - 1, or those less a small number.
    public mutating func edgy64() -> UInt64 {
        let small = UInt64(byte())
        switch choice(12) {
        case 0: return 0
        case 1: return small
        case 2: return UInt64(UInt32.max) - small
        case 3: return UInt64(Int64.max) - small
        case 4: return UInt64(Int64.max) + small
        case 5: return UInt64.max - small
        case 6: return 1 << 31
        case 7: return UInt64(Int32.max) + small
        case 8: return small << 8 | UInt64(byte())
        default: return bytes(8).reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    /// A 32-bit value, most often one at an edge.
    public mutating func edgy32() -> UInt32 { UInt32(truncatingIfNeeded: edgy64()) }
}

extension Array where Element == UInt8 {
    /// Big-endian bytes of `value`, `width` of them.
    public static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// Little-endian bytes of `value`, `width` of them.
    public static func littleEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// A four-character code, one byte a character (`©` is 0xA9, as MP4 writes it).
    public static func code(_ text: String) -> [UInt8] { text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) } }
}

/// A finding: `message` on stderr, then the crash libFuzzer records (optimized builds drop a
/// precondition's message).
public func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("finding: \(message())\n".utf8))
    abort()
}
