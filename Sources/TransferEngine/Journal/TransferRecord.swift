import Foundation
import GRDB
import NetworkBasics

/// One transfer as the journal stores it.
struct TransferRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "transfer"
    /// Dates in GRDB's text format, without its ICU formatter (see ``UTCTimestamp``).
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { UTCTimestamp.text($0) }
    }
    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .custom { value in
            String.fromDatabaseValue(value).flatMap(UTCTimestamp.date(from:)) ?? Date.fromDatabaseValue(value)
        }
    }

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

    var transferID: TransferID { TransferID(rawValue: id) }
    var transferState: TransferState { TransferState(rawValue: state) ?? .failed }
    var validator: Validator { Validator(etag: etag, lastModified: lastModified) }
    /// The host and port the transfer connects to: what the HTTP client keeps connections to.
    var host: String {
        guard let url = URL(string: url), let host = url.host?.lowercased() else { return "" }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return "\(host):\(port)"
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
            url: URL(string: url) ?? URL(fileURLWithPath: "/"),
            destination: URL(filePath: destination, directoryHint: .notDirectory),
            tag: tag,
            state: transferState,
            receivedBytes: receivedBytes,
            expectedBytes: expectedBytes,
            failure: failure,
            contentType: contentType,
            requestHeaders: headers.isEmpty ? nil : headers,
            partialFile: URL(filePath: partialFile, directoryHint: .notDirectory))
    }
}
