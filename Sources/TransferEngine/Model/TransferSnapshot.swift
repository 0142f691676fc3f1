import Foundation

/// A transfer as it stands: what ``TransferSession/transfers()`` lists.
///
/// Its URLs are made when read: the snapshot keeps the resource's address and the files' paths as
/// text (a file URL costs thousands of instructions to make, and most readers of a snapshot never
/// ask for one). It encodes and decodes as it always has, URLs included.
public struct TransferSnapshot: Sendable, Hashable, Codable, Identifiable {
    /// Its identifier.
    public var id: TransferID
    /// The resource's address, as ``url`` gives it.
    var urlString: String
    /// The path of ``destination``.
    public var destinationPath: String
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
    /// The path of ``partialFile``.
    public var partialFilePath: String?

    /// The resource.
    public var url: URL {
        get { URL(string: urlString) ?? URL(filePath: "/") }
        set { urlString = newValue.absoluteString }
    }

    /// Where the finished file goes.
    public var destination: URL {
        get { URL(filePath: destinationPath, directoryHint: .notDirectory) }
        set { destinationPath = newValue.path }
    }

    /// The file the bytes stream into until the download completes (read it to use the bytes
    /// already received: a player can start before the end).
    public var partialFile: URL? {
        get { partialFilePath.map { URL(filePath: $0, directoryHint: .notDirectory) } }
        set { partialFilePath = newValue?.path }
    }

    init(
        id: TransferID, url: String, destination: String, tag: String?, state: TransferState, receivedBytes: Int64,
        expectedBytes: Int64?, failure: TransferError?, contentType: String?, requestHeaders: [String: String]?,
        partialFile: String?
    ) {
        self.id = id
        urlString = url
        destinationPath = destination
        self.tag = tag
        self.state = state
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.failure = failure
        self.contentType = contentType
        self.requestHeaders = requestHeaders
        partialFilePath = partialFile
    }

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

extension TransferSnapshot {
    private enum CodingKeys: String, CodingKey {
        case id, url, destination, tag, state, receivedBytes, expectedBytes, failure, contentType, requestHeaders
        case partialFile
    }

    /// Decodes a snapshot as ``encode(to:)`` writes it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(TransferID.self, forKey: .id),
            url: try container.decode(URL.self, forKey: .url).absoluteString,
            destination: try container.decode(URL.self, forKey: .destination).path,
            tag: try container.decodeIfPresent(String.self, forKey: .tag),
            state: try container.decode(TransferState.self, forKey: .state),
            receivedBytes: try container.decode(Int64.self, forKey: .receivedBytes),
            expectedBytes: try container.decodeIfPresent(Int64.self, forKey: .expectedBytes),
            failure: try container.decodeIfPresent(TransferError.self, forKey: .failure),
            contentType: try container.decodeIfPresent(String.self, forKey: .contentType),
            requestHeaders: try container.decodeIfPresent([String: String].self, forKey: .requestHeaders),
            partialFile: try container.decodeIfPresent(URL.self, forKey: .partialFile)?.path)
    }

    /// Encodes the snapshot with its URLs, under the names of its properties.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(url, forKey: .url)
        try container.encode(destination, forKey: .destination)
        try container.encodeIfPresent(tag, forKey: .tag)
        try container.encode(state, forKey: .state)
        try container.encode(receivedBytes, forKey: .receivedBytes)
        try container.encodeIfPresent(expectedBytes, forKey: .expectedBytes)
        try container.encodeIfPresent(failure, forKey: .failure)
        try container.encodeIfPresent(contentType, forKey: .contentType)
        try container.encodeIfPresent(requestHeaders, forKey: .requestHeaders)
        try container.encodeIfPresent(partialFile, forKey: .partialFile)
    }
}
