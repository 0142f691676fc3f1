import Foundation
import GRDB

/// One transfer as the journal stores it.
struct TransferRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "transfer"

    var id: String
    /// Queue order: lower starts first.
    var seq: Int64
    var url: String
    var destination: String
    var partialFile: String
    var tag: String?
    var state: String
    /// Bytes on disk as last seen (the partial file's length is the truth after a crash).
    var receivedBytes: Int64
    /// Bytes known to be flushed to disk (what survives a power cut).
    var durableBytes: Int64
    var expectedBytes: Int64?
    var etag: String?
    var lastModified: String?
    var contentType: String?
    var errorCode: String?
    var errorMessage: String?
    var errorPermanent: Bool?
    var createdAt: Date
    var updatedAt: Date
    /// The caller's request header fields, as JSON (`nil`: none).
    var requestHeaders: String?
    /// The `Content-Encoding` of the body on disk, `identity` when it had none (`nil`: no body yet).
    var contentEncoding: String? = nil

    var transferID: TransferID { TransferID(rawValue: id) }
    var transferState: TransferState { TransferState(rawValue: state) ?? .failed }
    var validator: Validator { Validator(etag: etag, lastModified: lastModified) }
    /// The host and port the transfer connects to: what the HTTP client keeps connections to.
    var host: String { Self.hostKey(of: url) }

    /// `host:port` of a URL, the host lowercased, the port the scheme's when none is given; `""`
    /// when it has no host. A plain `http(s)://name[:port]/…` is read off its bytes (the scheduler
    /// asks at every queueing and start: a URL parse was 1 % of a batch of small files); anything
    /// else (user info, an IPv6 address, percent signs) goes through `URL`, which gives the same.
    static func hostKey(of url: String) -> String {
        plainHostKey(of: url) ?? parsedHostKey(of: url)
    }

    /// The key as `URL` gives it.
    static func parsedHostKey(of url: String) -> String {
        guard let url = URL(string: url), let host = url.host?.lowercased() else { return "" }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return "\(host):\(port)"
    }

    /// The key of a plain `http(s)://name[:port]` URL, or `nil` for any other.
    private static func plainHostKey(of url: String) -> String? {
        var bytes = url.utf8[...]
        let defaultPort: Int
        if bytes.starts(with: "http://".utf8, by: { $0 | 0x20 == $1 | 0x20 }) {
            (bytes, defaultPort) = (bytes.dropFirst(7), 80)
        } else if bytes.starts(with: "https://".utf8, by: { $0 | 0x20 == $1 | 0x20 }) {
            (bytes, defaultPort) = (bytes.dropFirst(8), 443)
        } else {
            return nil
        }
        let authority = bytes.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        let name = authority.prefix { $0 != UInt8(ascii: ":") }
        let isNameByte: (UInt8) -> Bool = { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"):
                true
            default: false
            }
        }
        guard !name.isEmpty, name.allSatisfy(isNameByte) else { return nil }
        var port = defaultPort
        if name.endIndex != authority.endIndex {
            let digits = authority[authority.index(after: name.endIndex)...]
            guard (1...5).contains(digits.count), digits.allSatisfy({ (48...57).contains($0) }),
                let value = Int(Substring(digits)), value <= 65_535
            else { return nil }
            port = value
        }
        // Written as bytes: the name lowercased (ASCII, checked above), a colon, the port.
        var key: [UInt8] = []
        key.reserveCapacity(name.count + 6)
        for byte in name { key.append(byte | (byte &- UInt8(ascii: "A") < 26 ? 0x20 : 0)) }
        key.append(UInt8(ascii: ":"))
        key.append(contentsOf: String(port).utf8)
        return String(decoding: key, as: UTF8.self)
    }

    /// The caller's request header fields.
    var headers: [String: String] {
        get {
            guard let requestHeaders, let data = requestHeaders.data(using: .utf8) else { return [:] }
            return (try? JSONDecoder().decode([String: String].self, from: data)) ?? [:]
        }
        set {
            requestHeaders =
                newValue.isEmpty
                ? nil : (try? JSONEncoder().encode(newValue)).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    var failure: TransferError? {
        guard let errorCode, let errorMessage else { return nil }
        return TransferError(.init(rawValue: errorCode), errorMessage, permanent: errorPermanent ?? false)
    }

    mutating func setFailure(_ error: TransferError?) {
        errorCode = error?.code.rawValue
        errorMessage = error?.message
        errorPermanent = error?.isPermanent
    }

    var progress: TransferProgress {
        TransferProgress(
            state: transferState, receivedBytes: receivedBytes, expectedBytes: expectedBytes, failure: failure)
    }

    var snapshot: TransferSnapshot {
        TransferSnapshot(
            id: transferID,
            url: url,
            destination: destination,
            tag: tag,
            state: transferState,
            receivedBytes: receivedBytes,
            expectedBytes: expectedBytes,
            failure: failure,
            contentType: contentType,
            requestHeaders: headers.isEmpty ? nil : headers,
            partialFile: partialFile)
    }
}
