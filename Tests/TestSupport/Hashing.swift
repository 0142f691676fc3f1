import Crypto
import Foundation

/// SHA-256 of `data` as lower-case hex, for byte-exact comparisons.
public func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}

/// Whether two bodies are the same bytes. For `#expect`: comparing large `Data` with `==` inside
/// `#expect` makes a failure compute a diff of the two, which takes hours for a preview's bytes.
public func sameBytes(_ a: Data?, _ b: Data?) -> Bool { a == b }
