import Foundation
import NetworkBasics

/// Where the catalog is and how politely to use it.
public struct CatalogConfiguration: Sendable {
    /// The real iTunes catalog.
    public static let defaultBaseURL = URL(string: "https://itunes.apple.com")!

    /// The catalog's base URL; `/search` and `/lookup` are appended to it.
    public var baseURL: URL
    /// How long one call may take, from connecting to the last byte.
    public var timeout: Duration
    /// How long an answer is reused for the same query.
    public var cacheLifetime: Duration
    /// How many distinct answers are kept.
    public var cacheCapacity: Int
    /// Calls allowed in any 60-second window; `nil` for no pacing (a local catalog).
    /// The live API allows about 20 a minute and answers 403 past that.
    public var callsPerMinute: Int?
    /// The longest a call waits for its turn before failing as rate limited.
    public var longestPacingWait: Duration
    /// The certificate authorities trusted for an HTTPS catalog: the system's (default), or more.
    public var trustRoots: TrustRoots = .system
    /// The proxies calls go through (default: none).
    public var proxies: ProxySettings = .none

    /// Creates a configuration; the defaults suit the live iTunes API.
    public init(
        baseURL: URL = CatalogConfiguration.defaultBaseURL,
        timeout: Duration = .seconds(15),
        cacheLifetime: Duration = .seconds(300),
        cacheCapacity: Int = 64,
        callsPerMinute: Int? = 20,
        longestPacingWait: Duration = .seconds(10)
    ) {
        self.baseURL = baseURL
        self.timeout = timeout
        self.cacheLifetime = cacheLifetime
        self.cacheCapacity = cacheCapacity
        self.callsPerMinute = callsPerMinute
        self.longestPacingWait = longestPacingWait
    }
}
