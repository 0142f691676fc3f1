import Foundation

/// Identifies a transfer within its session, across restarts.
public struct TransferID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The identifier's text (a UUID unless the caller chose one).
    public let rawValue: String

    /// Wraps an identifier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A new, unique identifier: a random (version 4) UUID in lower case, written directly
    /// (Foundation's `UUID().uuidString.lowercased()` costs more than the rest of queuing a download).
    public static func make() -> TransferID {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<2).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // variant 1
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return TransferID(rawValue: String(decoding: text, as: UTF8.self))
    }

    public var description: String { rawValue }
}
