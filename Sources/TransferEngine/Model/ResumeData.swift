import Foundation

/// What it takes to resume a download later, possibly in another process: the URL, the validator
/// of the version partly downloaded, and where those bytes are.
///
/// Linux's URLSession gives `nil` resume data; this is the value it should have given. Persist it
/// (``encoded()``) and pass it back to ``TransferSession/resume(with:)``.
///
/// The encoded form is a small JSON object (a few hundred bytes) that names itself (`"format"`)
/// and its version, so that data from a newer release, or bytes that are not resume data at all,
/// are refused with a clear error instead of being misread.
public struct ResumeData: Sendable, Hashable, Codable {
    /// What the `format` field of encoded resume data says.
    public static let formatName = "halftunes.resume-data"
    /// The newest version this build reads (and the one it writes).
    public static let currentVersion = 1

    /// Names the encoding (``formatName``).
    public var format: String? = ResumeData.formatName
    /// Format version of the encoded form.
    public var version = ResumeData.currentVersion
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
    /// The caller's request header fields, if any (sent again when resuming).
    public var headers: [String: String]?

    /// Creates resume data.
    public init(
        url: URL, destination: URL, partialFile: URL, bytesOnDisk: Int64, expectedBytes: Int64?,
        validator: Validator, tag: String? = nil, headers: [String: String]? = nil
    ) {
        self.url = url
        self.destination = destination
        self.partialFile = partialFile
        self.bytesOnDisk = bytesOnDisk
        self.expectedBytes = expectedBytes
        self.validator = validator
        self.tag = tag
        self.headers = headers
    }

    /// The encoded form (JSON), small enough to keep anywhere.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(self)
    }

    /// Decodes resume data made by ``encoded()``.
    ///
    /// - Throws: ``TransferError`` with code `.invalidResumeData` saying whether the bytes are not
    ///   resume data, are cut short or damaged, or come from a newer version.
    public init(encoded data: Data) throws(TransferError) {
        func invalid(_ why: String) -> TransferError {
            TransferError(.invalidResumeData, "the resume data \(why)", permanent: true)
        }
        guard !data.isEmpty else { throw invalid("is empty") }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            // Ours always starts with `{"`: such bytes that do not parse were cut short or damaged.
            throw data.starts(with: Data("{\"".utf8))
                ? invalid("is truncated or damaged") : invalid("is not HalfTunes resume data")
        }
        guard let fields = object as? [String: Any], fields["url"] != nil || fields["format"] != nil else {
            throw invalid("is not HalfTunes resume data")
        }
        if let format = fields["format"] as? String, format != Self.formatName {
            throw invalid("is of another format (\(format))")
        }
        if let version = fields["version"] as? Int, version > Self.currentVersion {
            throw invalid("was made by a newer version (format \(version); this build reads up to \(Self.currentVersion))")
        }
        do {
            self = try JSONDecoder().decode(ResumeData.self, from: data)
        } catch {
            throw invalid("is incomplete (\(Self.describe(error)))")
        }
        guard bytesOnDisk >= 0, partialFile.isFileURL, destination.isFileURL else {
            throw invalid("does not describe a partial file")
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _): "no \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            "bad \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: "unreadable"
        }
    }
}
