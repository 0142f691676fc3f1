import Crypto
import Foundation

/// SHA-256 of `data` as lower-case hex, for byte-exact comparisons.
public func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}
