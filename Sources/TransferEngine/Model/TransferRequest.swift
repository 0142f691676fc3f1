import Foundation

/// One download to start: what ``TransferSession/start(url:destination:tag:headers:)`` takes, for
/// ``TransferSession/start(_:)``'s batches.
///
/// The destination is kept as a path: a caller with a path (a library filing thousands of
/// downloads) makes no file URL for it, and the session reads no path back out of one.
public struct TransferRequest: Sendable, Hashable {
    /// The resource (http or https).
    public var url: URL
    /// The path of ``destination``; empty when the destination given is not a file URL.
    public private(set) var destinationPath: String
    /// The destination given when it is not a file URL (starting the request then fails).
    var otherDestination: URL?
    /// A label of the caller's, kept with the transfer.
    public var tag: String?
    /// Header fields to send with every request of this transfer (see ``RequestHeaders``).
    public var headers: [String: String]

    /// Where the finished file goes (an absolute file URL).
    public var destination: URL {
        get { otherDestination ?? URL(filePath: destinationPath, directoryHint: .notDirectory) }
        set {
            destinationPath = newValue.isFileURL ? newValue.path : ""
            otherDestination = newValue.isFileURL ? nil : newValue
        }
    }

    /// A request.
    public init(url: URL, destination: URL, tag: String? = nil, headers: [String: String] = [:]) {
        self.init(url: url, destinationPath: "", tag: tag, headers: headers)
        self.destination = destination
    }

    /// A request to download `url` to the file at the absolute path `destinationPath`.
    public init(url: URL, destinationPath: String, tag: String? = nil, headers: [String: String] = [:]) {
        self.url = url
        self.destinationPath = destinationPath
        self.tag = tag
        self.headers = headers
    }
}
