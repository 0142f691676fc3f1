import AsyncHTTPClient
import NIOCore
import NIOPosix
import NetworkBasics

/// How a ``TransferSession`` behaves.
public struct TransferSessionConfiguration: Sendable {
    /// Transfers receiving at once (default 4); the rest queue in order. A transfer whose bytes
    /// have all arrived finishes its file (flush, rename) without its connection, so the next one
    /// starts meanwhile; at most as many again may be finishing.
    public var maxConcurrentTransfers: Int
    /// Transfers receiving at once from one host (default 4): the connections kept to it.
    public var maxTransfersPerHost: Int
    /// Transfers more, per host, whose requests may wait for one of its connections when all are
    /// busy (default 0). Such a transfer is `running` with no bytes yet; it takes the first of the
    /// host's connections that frees, at once, where otherwise the connection would idle while
    /// the session picks the next transfer: with many small files on a fast link, that trip is a
    /// good part of each file's time. It never opens a connection of its own, so no more
    /// transfers receive at once than the limits allow. A request that waits longer than
    /// ``connectTimeout`` waits again; that is no failure.
    public var requestsWaitingPerHost: Int
    /// How transient failures are retried.
    public var retryPolicy: RetryPolicy
    /// A transfer with no data for this long is treated as a dropped connection and retried.
    public var stallTimeout: Duration
    /// How long connecting may take.
    public var connectTimeout: Duration
    /// The shortest gap between two progress events of one transfer (default 100 ms: ten a second).
    public var progressInterval: Duration
    /// Bytes between two flushes of a partial file to the device (and journal checkpoints).
    public var checkpointBytes: Int64
    /// What the bytes survive: a power cut (the default: flushes at checkpoints and on completion)
    /// or only a crash of the process (no flushes).
    public var durability: Durability
    /// Redirects followed before giving up.
    public var maxRedirects: Int
    /// Whether queued transfers start by themselves. A process that only inspects or edits the
    /// session (a `list` or `pause` command) opens it with `false`, so nothing downloads meanwhile.
    public var startsTransfers: Bool
    /// Whether a completed transfer leaves the session (and its journal) as it completes, in the
    /// same journal write, instead of staying listed until `TransferSession.forget(_:)`. For a
    /// caller that takes each file as it is reported and needs no history (ResumableURLSession's
    /// default sessions).
    public var forgetsCompletedTransfers: Bool
    /// Whether each response's head (status and headers) is reported, as a
    /// ``TransferEvent/responded(_:_:)`` event (default `true`). A caller that never reads them
    /// turns this off: no copy of the headers and no event per response.
    public var reportsResponses: Bool
    /// The last step of every download, before its file is renamed into place (`nil`: none).
    public var finisher: TransferFinisher?
    /// The certificate authorities trusted for HTTPS: the system's (default), or more besides.
    public var trustRoots: TrustRoots = .system
    /// The proxies transfers go through (default: none; ``ProxySettings/resolve(explicit:environment:)``
    /// reads them as curl does).
    public var proxies: ProxySettings = .none
    /// The most bytes a second all transfers together receive (`nil`, the default: no cap), as
    /// curl's `--limit-rate`; ``TransferSession/setBandwidthLimit(_:)`` changes it while they run.
    public var bandwidthLimit: Int?
    /// Whether the journal lives in memory (default `false`): nothing of the session is written
    /// but its files, and what it was doing ends with the process (its partial files stay, for
    /// resume data). ResumableURLSession's `.ephemeral` sessions.
    public var keepsJournalInMemory = false
    /// Whether an HTTP error status (a 4xx or 5xx that is not retried) is downloaded as the file,
    /// as any other body is, instead of failing the transfer (default `false`). The status is in
    /// the ``TransferEvent/responded(_:_:)`` event. Retries of 408, 429 and 5xx are unchanged.
    /// So is a redirect that the session's redirect approval refuses: its 3xx body is the file.
    public var deliversErrorBodies = false
    /// Whether a transfer whose URL names a public host stays on the public internet (default
    /// `false`): a redirect to, or a name that resolves to, a loopback, private or unspecified
    /// address fails the transfer for good, with a reason naming the host (see ``NetworkReach``).
    /// For URLs from a source that must not reach this machine or its network (a catalog's).
    public var keepsPublicTransfersPublic = false
    /// The largest file a transfer may download, in bytes (`nil`, the default: no limit), as curl's
    /// `--max-filesize`: a response announcing a larger file fails before its body is read, and a
    /// body that grows past the limit (no length announced, or a false one) fails as it does. Both
    /// fail for good (``TransferError/Code/fileTooLarge``), the partial file removed: a server
    /// cannot fill the disk.
    public var maximumFileSize: Int64?
    /// The HTTP clients the transfers use (default `nil`: made from this configuration as the
    /// session opens). Clients from ``makeHTTPClients()`` used before the session opens (a
    /// catalog lookup begun while it opens, say) hand it their connections; it shuts them down.
    public var httpClients: HTTPClientSet?

    /// Creates a configuration.
    public init(
        maxConcurrentTransfers: Int = 4,
        maxTransfersPerHost: Int = 4,
        requestsWaitingPerHost: Int = 0,
        retryPolicy: RetryPolicy = RetryPolicy(),
        stallTimeout: Duration = .seconds(30),
        connectTimeout: Duration = .seconds(10),
        progressInterval: Duration = .milliseconds(100),
        checkpointBytes: Int64 = 64 << 20,
        durability: Durability = .powerLoss,
        maxRedirects: Int = 10,
        startsTransfers: Bool = true,
        forgetsCompletedTransfers: Bool = false,
        reportsResponses: Bool = true,
        finisher: TransferFinisher? = nil
    ) {
        self.maxConcurrentTransfers = maxConcurrentTransfers
        self.maxTransfersPerHost = maxTransfersPerHost
        self.requestsWaitingPerHost = requestsWaitingPerHost
        self.retryPolicy = retryPolicy
        self.stallTimeout = stallTimeout
        self.connectTimeout = connectTimeout
        self.progressInterval = progressInterval
        self.checkpointBytes = checkpointBytes
        self.durability = durability
        self.maxRedirects = maxRedirects
        self.startsTransfers = startsTransfers
        self.forgetsCompletedTransfers = forgetsCompletedTransfers
        self.reportsResponses = reportsResponses
        self.finisher = finisher
    }

    /// The HTTP clients a session with this configuration makes (one per proxy used), on NIO's
    /// shared event loops.
    public func makeHTTPClients() -> HTTPClientSet {
        HTTPClientSet(configuration: httpClientConfiguration(), proxies: proxies)
    }

    /// The configuration of the engine's HTTP client: at most ``maxTransfersPerHost`` connections
    /// to a host, no decompression, no retries or redirects of its own (the engine retries,
    /// resumes and follows redirects, checking each hop), HTTP/2
    /// windows granted in full at the start.
    func httpClientConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            // Redirects are followed by the engine, one hop at a time (``Redirect``).
            redirectConfiguration: .disallow,
            timeout: .init(connect: .init(connectTimeout), read: .init(stallTimeout)),
            decompression: .disabled)
        // The engine retries with its own backoff and resumes; the pool must fail fast instead.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(maxTransfersPerHost, 1)
        configuration.tlsConfiguration = trustRoots.tlsConfiguration
        // The windows AsyncHTTPClient grows each stream to, granted from the first byte.
        configuration.grantsHTTP2Windows(of: 8 << 20)
        return configuration
    }
}
