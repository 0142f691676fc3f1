import Foundation

/// A transfer as it stands: what ``TransferSession/transfers()`` lists.
public struct TransferSnapshot: Sendable, Hashable, Codable, Identifiable {
    /// Its identifier.
    public var id: TransferID
    /// The resource.
    public var url: URL
    /// Where the finished file goes.
    public var destination: URL
    /// The caller's label, if any.
    public var tag: String?
    /// Its state.
    public var state: TransferState
    /// Bytes of the resource received so far (on disk).
    public var receivedBytes: Int64
    /// The resource's full length, when known.
    public var expectedBytes: Int64?
    /// Why it failed, when it did.
    public var failure: TransferError?
    /// The media type the server gave, once known.
    public var contentType: String?
    /// The caller's request header fields, if any.
    public var requestHeaders: [String: String]?
    /// The file the bytes stream into until the download completes (read it to use the bytes
    /// already received: a player can start before the end).
    public var partialFile: URL?

    /// How far it has come.
    public var progress: TransferProgress {
        TransferProgress(state: state, receivedBytes: receivedBytes, expectedBytes: expectedBytes, failure: failure)
    }

    /// Fraction done (0…1), when the length is known.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(receivedBytes) / Double(expectedBytes))
    }
}
