/// The response side of resuming: what to do with the answer to a (possibly ranged) GET.
///
/// Pure, so every branch of RFC 9110's range rules is unit-tested without a socket.
public enum ResponseDecision: Sendable, Hashable {
    /// Write the body into the partial file starting at `offset` (truncating anything after it).
    /// `expectedTotal` is the resource's full length when the server gave it.
    case write(offset: Int64, expectedTotal: Int64?)
    /// The partial file already holds the whole resource (416 whose length equals the bytes on disk).
    case alreadyComplete(total: Int64)
    /// The answer cannot be appended to what is on disk: discard it and ask for the whole resource.
    case restart(reason: String)
    /// A transient failure answered with HTTP `status`: try again later (after `retryAfter` if
    /// the server said so).
    case retry(status: Int, retryAfter: Duration?)
    /// A permanent failure.
    case fail(status: Int)
    /// A redirect (301, 302, 303, 307 or 308 with a `Location`): the same request to `location`
    /// (relative to the URL asked), as the engine decides hop by hop.
    case redirect(location: String, status: Int)

    /// The parts of a response head the decision needs.
    public struct Head: Sendable, Hashable {
        public var status: Int
        public var contentRange: String?
        public var contentLength: Int64?
        public var etag: String?
        public var retryAfter: Duration?
        public var location: String?

        public init(
            status: Int, contentRange: String? = nil, contentLength: Int64? = nil, etag: String? = nil,
            retryAfter: Duration? = nil, location: String? = nil
        ) {
            self.location = location
            self.status = status
            self.contentRange = contentRange
            self.contentLength = contentLength
            self.etag = etag
            self.retryAfter = retryAfter
        }
    }

    /// Decides.
    ///
    /// - Parameters:
    ///   - head: The response's status and headers.
    ///   - requestedOffset: Where the request's `Range` started (0 when none was sent).
    ///   - bytesOnDisk: How many bytes the partial file holds.
    ///   - validator: The validator of the bytes on disk.
    ///   - deliversErrorBodies: Whether an error status that is not retried is a body to write
    ///     whole, as Apple's sessions hand over an error page (see
    ///     ``TransferSessionConfiguration/deliversErrorBodies``).
    public static func decide(
        _ head: Head, requestedOffset: Int64, bytesOnDisk: Int64, validator: Validator, deliversErrorBodies: Bool = false
    ) -> ResponseDecision {
        switch head.status {
        case 200:
            // The whole resource: it changed (If-Range failed), ranges are unsupported, or none was asked.
            return .write(offset: 0, expectedTotal: head.contentLength)
        case 206:
            guard let header = head.contentRange, let contentRange = ContentRange(header),
                let range = contentRange.range
            else { return .restart(reason: "206 without a usable Content-Range") }
            guard range.lowerBound == requestedOffset else {
                return .restart(reason: "Content-Range starts at \(range.lowerBound), not at the requested \(requestedOffset)")
            }
            if requestedOffset > 0, let etag = head.etag, let ours = validator.etag, etag != ours, !etag.hasPrefix("W/") {
                return .restart(reason: "206 for a different version (ETag \(etag), ours \(ours))")
            }
            if let length = head.contentLength, length != Int64(range.count) {
                return .restart(reason: "Content-Length \(length) disagrees with Content-Range \(header)")
            }
            // An open-ended request must be answered to the end; otherwise the file would be short.
            if let total = contentRange.total, range.upperBound != total - 1 {
                return .restart(reason: "Content-Range \(header) stops before the end")
            }
            return .write(offset: range.lowerBound, expectedTotal: contentRange.total)
        case 416:
            if let header = head.contentRange, let total = ContentRange(header)?.total, total == bytesOnDisk, total > 0 {
                return .alreadyComplete(total: total)
            }
            return .restart(reason: "the server cannot serve bytes from \(requestedOffset) (416)")
        case let status where [301, 302, 303, 307, 308].contains(status) && head.location.map { !$0.isEmpty } == true:
            return .redirect(location: head.location ?? "", status: status)
        case 408, 425, 429, 500...599:
            return .retry(status: head.status, retryAfter: head.retryAfter)
        case 400...499 where deliversErrorBodies:
            return .write(offset: 0, expectedTotal: head.contentLength)
        default:
            return .fail(status: head.status)
        }
    }
}
