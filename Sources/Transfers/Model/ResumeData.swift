import Foundation

/// What it takes to resume a download later, possibly in another process: the URL, the validator
/// of the version partly downloaded, and where those bytes are.
///
/// Linux's URLSession gives `nil` resume data; this is the value it should have given. Persist it
/// (``encoded()``) and pass it back to ``TransferSession/resume(with:)``.
public struct ResumeData: Sendable, Hashable, Codable {
    /// Format version of the encoded form.
    public var version = 1
    /// The resource.
    public var url: URL
    /// Where the finished file goes.
    public var destination: URL
    /// The partial file holding the first ``bytesOnDisk`` bytes.
    public var partialFile: URL
    /// How many bytes of the resource are in the partial file.
    public var bytesOnDisk: Int64
    /// The resource's full length, if known.
    public var expectedBytes: Int64?
    /// The version those bytes belong to.
    public var validator: Validator
    /// The caller's label for the transfer, if any.
    public var tag: String?

    /// Creates resume data.
    public init(
        url: URL, destination: URL, partialFile: URL, bytesOnDisk: Int64, expectedBytes: Int64?,
        validator: Validator, tag: String? = nil
    ) {
        self.url = url
        self.destination = destination
        self.partialFile = partialFile
        self.bytesOnDisk = bytesOnDisk
        self.expectedBytes = expectedBytes
        self.validator = validator
        self.tag = tag
    }

    /// The encoded form (JSON), small enough to keep anywhere.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(self)
    }

    /// Decodes resume data made by ``encoded()``.
    public init(encoded data: Data) throws {
        self = try JSONDecoder().decode(ResumeData.self, from: data)
    }
}
