/// Header fields a caller adds to a transfer's requests (an `Authorization`, a `User-Agent`, an
/// API key), checked once when the transfer is created.
///
/// The engine owns the fields that resuming depends on: `Range` and `If-Range` (a caller's own
/// range would be spliced into the wrong file), and the framing fields the HTTP client sets
/// (`Host`, `Content-Length`, `Transfer-Encoding`, `Connection`). Without the caller's
/// `Accept-Encoding`, the engine asks for `identity`; with one that names a coding, the body is
/// stored as it comes and decoded (gzip, deflate) when the transfer finishes.
public enum RequestHeaders {
    /// Field names a caller may not set, lowercased.
    static let reserved: Set<String> = [
        "range", "if-range", "host", "content-length", "transfer-encoding", "connection",
    ]

    /// Returns `headers` if every field may be sent, or throws naming the first that may not.
    public static func validated(_ headers: [String: String]) throws(TransferError) -> [String: String] {
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            let lower = name.lowercased()
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte) else {
                throw TransferError(.invalidRequest, "'\(name)' is not a valid header field name", permanent: true)
            }
            guard !value.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 }) else {
                throw TransferError(.invalidRequest, "the value of header '\(name)' has a line break", permanent: true)
            }
            if reserved.contains(lower) {
                throw TransferError(
                    .invalidRequest, "the '\(name)' header is set by the transfer engine, not by the caller", permanent: true)
            }
        }
        return headers
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
