/// A response head as the engine received it: what a caller needs to present the answer (a
/// URLSession-style `HTTPURLResponse`) and to know where the body started.
public struct TransferResponse: Sendable, Hashable {
    /// The HTTP status code (200, 206, 404…).
    public var status: Int
    /// The header fields, one value per name (repeated fields joined with ", ").
    public var headers: [String: String]
    /// Where in the file this response's body is being written, or `nil` when the engine does not
    /// write it (a failure status, a redirect-free 416, an inconsistent answer).
    public var bodyOffset: Int64?
    /// The resource's full length, when the response tells it.
    public var expectedTotal: Int64?

    /// Creates a response description.
    public init(status: Int, headers: [String: String], bodyOffset: Int64?, expectedTotal: Int64?) {
        self.status = status
        self.headers = headers
        self.bodyOffset = bodyOffset
        self.expectedTotal = expectedTotal
    }
}
