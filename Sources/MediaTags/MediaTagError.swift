/// Why a file could not be tagged. The file itself is never changed when tagging fails.
public struct MediaTagError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: String, Sendable, Hashable {
        /// Neither an MP4/M4A nor a WAV file.
        case unknownFormat
        /// The container's structure is broken: a box or chunk runs past its parent, nests too deep, …
        case malformed
        /// A valid file of a shape the writer does not rewrite (a fragmented MP4, a file over 4 GiB).
        case unsupported
        /// The file could not be read or written.
        case fileSystem
    }

    /// What went wrong.
    public let kind: Kind
    /// A one-line explanation.
    public let message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
