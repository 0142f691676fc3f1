/// Faults the DemoCatalog injects into preview downloads, so clients' failure paths can be tested
/// against a real server.
public struct PreviewFaults: Sendable, Hashable {
    /// Send the body at about this many bytes per second.
    public var bytesPerSecond: Int?
    /// Close the connection after this many body bytes…
    public var dropAfterBytes: Int?
    /// …in this many responses (then serve normally).
    public var drops: Int
    /// Answer this many requests with 503 and `Retry-After`.
    public var unavailableResponses: Int
    /// The `Retry-After` sent with those 503s, in seconds.
    public var retryAfterSeconds: Int
    /// Answer every request with 200 and the whole file, as a server without range support does.
    public var ignoresRange: Bool
    /// Send no `Content-Length` (a chunked body), as servers that compress or generate on the fly do.
    public var sendsNoLength: Bool
    /// Answer this many requests with this status and no body (404, 500…).
    public var failure: (status: Int, count: Int)?
    /// Redirect (302) every request not addressed to this base URL's host and port to the same
    /// preview there: a CDN that sends clients to another host.
    public var redirectTo: String?

    /// No faults.
    public init(
        bytesPerSecond: Int? = nil, dropAfterBytes: Int? = nil, drops: Int = 0, unavailableResponses: Int = 0,
        retryAfterSeconds: Int = 1, ignoresRange: Bool = false, failure: (status: Int, count: Int)? = nil,
        redirectTo: String? = nil, sendsNoLength: Bool = false
    ) {
        self.sendsNoLength = sendsNoLength
        self.redirectTo = redirectTo
        self.bytesPerSecond = bytesPerSecond
        self.dropAfterBytes = dropAfterBytes
        self.drops = drops
        self.unavailableResponses = unavailableResponses
        self.retryAfterSeconds = retryAfterSeconds
        self.ignoresRange = ignoresRange
        self.failure = failure
    }

    public static func == (lhs: PreviewFaults, rhs: PreviewFaults) -> Bool {
        lhs.bytesPerSecond == rhs.bytesPerSecond && lhs.dropAfterBytes == rhs.dropAfterBytes && lhs.drops == rhs.drops
            && lhs.unavailableResponses == rhs.unavailableResponses && lhs.retryAfterSeconds == rhs.retryAfterSeconds
            && lhs.ignoresRange == rhs.ignoresRange && lhs.failure?.status == rhs.failure?.status
            && lhs.failure?.count == rhs.failure?.count && lhs.redirectTo == rhs.redirectTo
            && lhs.sendsNoLength == rhs.sendsNoLength
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytesPerSecond)
        hasher.combine(dropAfterBytes)
        hasher.combine(drops)
        hasher.combine(unavailableResponses)
        hasher.combine(ignoresRange)
        hasher.combine(sendsNoLength)
    }
}

/// One preview request as the DemoCatalog saw and answered it.
public struct PreviewRequest: Sendable, Hashable {
    /// The track asked for.
    public let trackId: Int
    /// The `Range` header, if any.
    public let range: String?
    /// The `If-Range` header, if any.
    public let ifRange: String?
    /// The status answered.
    public let status: Int
    /// The body length announced.
    public let bodyBytes: Int
}
