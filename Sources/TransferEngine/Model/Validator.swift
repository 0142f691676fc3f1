/// What identifies one version of a remote resource, so a resumed download is never a splice of two.
public struct Validator: Sendable, Hashable, Codable {
    /// The `ETag`, quotes included, if the server sent one.
    public var etag: String?
    /// The `Last-Modified` date as the server wrote it.
    public var lastModified: String?

    /// Creates a validator.
    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The value to send as `If-Range`: a strong ETag, else the date; `nil` when neither can be
    /// used (a weak ETag never matches If-Range), and then resuming is not safe.
    public var ifRange: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }
}
