import Foundation

/// One download to start: what ``TransferSession/start(url:destination:tag:headers:)`` takes, for
/// ``TransferSession/start(_:)``'s batches.
public struct TransferRequest: Sendable, Hashable {
    /// The resource (http or https).
    public var url: URL
    /// Where the finished file goes (an absolute file URL).
    public var destination: URL
    /// A label of the caller's, kept with the transfer.
    public var tag: String?
    /// Header fields to send with every request of this transfer (see ``RequestHeaders``).
    public var headers: [String: String]

    /// A request.
    public init(url: URL, destination: URL, tag: String? = nil, headers: [String: String] = [:]) {
        self.url = url
        self.destination = destination
        self.tag = tag
        self.headers = headers
    }
}
