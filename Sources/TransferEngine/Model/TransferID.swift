import Foundation

/// Identifies a transfer within its session, across restarts.
public struct TransferID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The identifier's text (a UUID unless the caller chose one).
    public let rawValue: String
    /// The text's hash, computed once (with this process's seed; never stored): an identifier is
    /// the key of the session's tables, looked up dozens of times a download, and hashing its 36
    /// characters each time cost more than the rest of those lookups.
    private let textHash: Int

    /// Wraps an identifier.
    public init(rawValue: String) {
        self.rawValue = rawValue
        textHash = rawValue.hashValue
    }

    /// Whether two identifiers have the same text.
    public static func == (lhs: TransferID, rhs: TransferID) -> Bool {
        lhs.textHash == rhs.textHash && lhs.rawValue == rhs.rawValue
    }

    /// Feeds the text's hash, kept from ``init(rawValue:)``, to `hasher`.
    public func hash(into hasher: inout Hasher) { hasher.combine(textHash) }

    /// A new, unique identifier: a random (version 4) UUID in lower case, written directly
    /// (Foundation's `UUID().uuidString.lowercased()` costs more than the rest of queuing a
    /// download), from one read of the system's random source (`arc4random_buf`;
    /// `SystemRandomNumberGenerator` makes one for each 8 bytes: 4,000 for a batch of 2,000).
    public static func make() -> TransferID {
        var bytes: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &bytes) { arc4random_buf($0.baseAddress!, 16) }
        return withUnsafeMutableBytes(of: &bytes) { raw in
            raw[6] = raw[6] & 0x0F | 0x40  // version 4
            raw[8] = raw[8] & 0x3F | 0x80  // variant 1
            let digits: StaticString = "0123456789abcdef"
            let text = String(unsafeUninitializedCapacity: 36) { out in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    out[position] = digits.utf8Start[Int(raw[index] >> 4)]
                    out[position + 1] = digits.utf8Start[Int(raw[index] & 0x0F)]
                    position += 2
                }
                return position
            }
            return TransferID(rawValue: text)
        }
    }

    public var description: String { rawValue }
}
