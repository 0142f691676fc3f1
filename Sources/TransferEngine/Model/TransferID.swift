import Foundation

/// Identifies a transfer within its session, across restarts.
public struct TransferID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The identifier's text (a UUID unless the caller chose one).
    public let rawValue: String

    /// Wraps an identifier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A new, unique identifier.
    public static func make() -> TransferID { TransferID(rawValue: UUID().uuidString.lowercased()) }

    public var description: String { rawValue }
}
