/// Why a catalog call failed, with a message fit to show a user as it is.
///
/// Modelled on `HTTPClientError`: a struct with a ``Code`` so that new kinds of failure can be
/// added without breaking callers that switch over them.
public struct CatalogError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case hostUnreachable, rateLimited, badRequest, serverError, malformedResponse, timeout
            case invalidQuery, invalidCatalogURL, tlsFailure
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The catalog's host could not be reached.
        public static let hostUnreachable = Code(.hostUnreachable)
        /// The catalog's certificate or TLS handshake was refused (untrusted, expired, another
        /// host's): for good, until the server or the trust roots change.
        public static let tlsFailure = Code(.tlsFailure)
        /// The API refused the call because too many were made (403 or 429), or HalfTunes held it back.
        public static let rateLimited = Code(.rateLimited)
        /// The API rejected a parameter (HTTP 400).
        public static let badRequest = Code(.badRequest)
        /// The API failed on its side (HTTP 5xx) or answered with an unexpected status.
        public static let serverError = Code(.serverError)
        /// The answer was not a search response.
        public static let malformedResponse = Code(.malformedResponse)
        /// The catalog did not answer in time.
        public static let timeout = Code(.timeout)
        /// The query itself is invalid (caught before any call is made).
        public static let invalidQuery = Code(.invalidQuery)
        /// The catalog base URL is not an http(s) URL with a host.
        public static let invalidCatalogURL = Code(.invalidCatalogURL)

        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// A one-line explanation for the user.
    public let message: String
    /// How long to wait before calling again, when the catalog is rate limited.
    public var retryAfter: Duration? = nil

    public var description: String { message }

    static func hostUnreachable(_ host: String, detail: String) -> CatalogError {
        CatalogError(code: .hostUnreachable, message: "cannot reach the catalog at \(host): \(detail)")
    }

    static func rateLimited(status: Int?, retryAfter: Duration? = nil) -> CatalogError {
        let cause =
            status.map { "the catalog refused the call (HTTP \($0)): too many requests" }
            ?? "too many catalog requests in the last minute"
        let wait =
            retryAfter.map { "retry in \(Int($0.components.seconds.clamped(to: 1...3600))) s" }
            ?? "wait a minute and try again"
        return CatalogError(code: .rateLimited, message: "\(cause); \(wait)", retryAfter: retryAfter ?? .seconds(60))
    }

    static func badRequest(message: String) -> CatalogError {
        CatalogError(code: .badRequest, message: "the catalog rejected the request: \(message)")
    }

    static func serverError(status: Int) -> CatalogError {
        CatalogError(code: .serverError, message: "the catalog failed with HTTP \(status); try again later")
    }

    static func malformedResponse(reason: String) -> CatalogError {
        CatalogError(code: .malformedResponse, message: "the catalog sent a malformed response: \(reason)")
    }

    static func timeout(_ host: String, after: Duration) -> CatalogError {
        CatalogError(code: .timeout, message: "the catalog at \(host) did not answer within \(after)")
    }

    static func invalidCatalogURL(_ url: String) -> CatalogError {
        CatalogError(code: .invalidCatalogURL, message: "the catalog URL must look like https://host[:port], not \"\(url)\"")
    }

    static func invalidQuery(_ reason: String) -> CatalogError {
        CatalogError(code: .invalidQuery, message: reason)
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
