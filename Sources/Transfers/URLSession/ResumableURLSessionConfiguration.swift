import Foundation
import Logging
import NetworkBasics
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a ``ResumableURLSession`` behaves: Foundation's `URLSessionConfiguration`, for sessions whose
/// downloads resume and outlive the process.
///
/// Like Foundation's, it is a class made by ``default`` or ``background(withIdentifier:)`` and
/// changed in place; a session takes a copy when it is created, so later changes do not reach it.
///
/// ```swift
/// let configuration = ResumableURLSessionConfiguration.background(withIdentifier: "com.example.downloads")
/// configuration.httpMaximumConnectionsPerHost = 4
/// let session = ResumableURLSession(configuration: configuration, delegate: self, delegateQueue: nil)
/// ```
public final class ResumableURLSessionConfiguration: Sendable {
    /// The settings, behind a lock so a configuration can be read and changed from any thread.
    struct Settings: Sendable {
        var httpMaximumConnectionsPerHost = 6
        var timeoutIntervalForRequest: TimeInterval = 60
        var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600
        var httpAdditionalHeaders: [String: String]?
        var durability = Durability.powerLoss
        var retryPolicy = RetryPolicy()
        var trustRoots = TrustRoots.system
        var proxies = (try? ProxySettings.resolve(explicit: nil)) ?? .none
        var sessionSendsLaunchEvents = true
        var isDiscretionary = false
        var stateDirectory = ResumableURLSessionConfiguration.defaultStateDirectory()
        var resumeDataLifetime: TimeInterval = 7 * 24 * 3600
        var logger = Logger(label: "ResumableURLSession", factory: { _ in SwiftLogNoOpLogHandler() })
        var deliversHTTPErrorBodies = false
        var httpCookieStorage: HTTPCookieStorage? = .shared
        var httpShouldSetCookies = true
        var httpCookieAcceptPolicy = HTTPCookie.AcceptPolicy.onlyFromMainDocumentDomain
        var urlCredentialStorage: URLCredentialStorage? = .shared
        var isEphemeral = false
        var usesTransferAgent = true
        var agentExecutable = TransferAgentLink.defaultExecutable()
        /// The environment the agent's socket is found from (`nil`: this process's).
        var agentEnvironment: [String: String]?
        var afterEngineStart: (@Sendable () async -> Void)?
    }

    private let settings: Mutex<Settings>

    /// The background session's identifier; `nil` for a default configuration.
    public let identifier: String?

    /// A configuration for a session that lives as long as its process: its downloads stop with
    /// the process (their resume data still works later). A new object on every call.
    public static var `default`: ResumableURLSessionConfiguration {
        ResumableURLSessionConfiguration(identifier: nil, Settings())
    }

    /// A configuration for a session that writes nothing of its own to disk: its journal is in
    /// memory, so its downloads end with the process, as a default session's do. Its partial
    /// files are still on disk (a download is), so the resume data of a cancelled task works
    /// in this process and in another one that is handed it. A new object on every call.
    public static var ephemeral: ResumableURLSessionConfiguration {
        var settings = Settings()
        settings.isEphemeral = true
        // A cookie jar of its own, in memory (Foundation's ephemeral one).
        settings.httpCookieStorage = URLSessionConfiguration.ephemeral.httpCookieStorage
        settings.urlCredentialStorage = URLSessionConfiguration.ephemeral.urlCredentialStorage
        return ResumableURLSessionConfiguration(identifier: nil, settings)
    }

    /// Whether this is an ``ephemeral`` configuration.
    public var isEphemeral: Bool { settings.withLock { $0.isEphemeral } }

    /// A configuration for a background session: its downloads are journaled under
    /// ``stateDirectory``/`sessions/<identifier>`, keep running while the process lives, and are
    /// resumed by the next process that creates a session with the same identifier (even after
    /// `kill -9` or a power cut). One process at a time owns an identifier.
    ///
    /// - Parameter identifier: Letters, digits, `.`, `_` and `-` (a reverse-DNS name fits).
    public static func background(withIdentifier identifier: String) -> ResumableURLSessionConfiguration {
        ResumableURLSessionConfiguration(identifier: identifier, Settings())
    }

    private init(identifier: String?, _ settings: Settings) {
        self.identifier = identifier
        self.settings = Mutex(settings)
    }

    /// Downloads running at once against one host (default 6, as Foundation's). Further tasks queue.
    public var httpMaximumConnectionsPerHost: Int {
        get { settings.withLock { $0.httpMaximumConnectionsPerHost } }
        set { settings.withLock { $0.httpMaximumConnectionsPerHost = newValue } }
    }

    /// How long a download may wait for more data before the connection counts as lost and is
    /// retried from the bytes on disk (default 60 s); for a data task, how long it waits for its
    /// answer, unless its request set a `timeoutInterval` of its own.
    public var timeoutIntervalForRequest: TimeInterval {
        get { settings.withLock { $0.timeoutIntervalForRequest } }
        set { settings.withLock { $0.timeoutIntervalForRequest = newValue } }
    }

    /// How long a task may take, from its first `resume()`, before it fails with
    /// `URLError.timedOut` (carrying resume data). Default 7 days, as Foundation's.
    public var timeoutIntervalForResource: TimeInterval {
        get { settings.withLock { $0.timeoutIntervalForResource } }
        set { settings.withLock { $0.timeoutIntervalForResource = newValue } }
    }

    /// Header fields sent with every request (a request's own fields win). `Range`, `If-Range`,
    /// `Accept-Encoding` other than `identity`, and framing fields are refused: the session sets them.
    public var httpAdditionalHeaders: [String: String]? {
        get { settings.withLock { $0.httpAdditionalHeaders } }
        set { settings.withLock { $0.httpAdditionalHeaders = newValue } }
    }

    /// What a download's bytes survive (default ``Durability/powerLoss``: flushed at checkpoints
    /// and before a file is handed over).
    public var durability: Durability {
        get { settings.withLock { $0.durability } }
        set { settings.withLock { $0.durability = newValue } }
    }

    /// How transient failures (dropped connections, 5xx, 429/503 with `Retry-After`) are retried
    /// before a task fails with resume data.
    public var retryPolicy: RetryPolicy {
        get { settings.withLock { $0.retryPolicy } }
        set { settings.withLock { $0.retryPolicy = newValue } }
    }

    /// Accepted for source compatibility; has no effect. There is no system daemon on Linux to
    /// relaunch an app: the next process that creates the session gets the events.
    public var sessionSendsLaunchEvents: Bool {
        get { settings.withLock { $0.sessionSendsLaunchEvents } }
        set { settings.withLock { $0.sessionSendsLaunchEvents = newValue } }
    }

    /// Accepted for source compatibility; has no effect (downloads are never deferred).
    public var isDiscretionary: Bool {
        get { settings.withLock { $0.isDiscretionary } }
        set { settings.withLock { $0.isDiscretionary = newValue } }
    }

    /// Where background journals and the partial files behind resume data live. Default:
    /// `$XDG_STATE_HOME/resumable-urlsession`, else `~/.local/state/resumable-urlsession`.
    /// Resume data is only accepted for partial files inside this folder.
    public var stateDirectory: URL {
        get { settings.withLock { $0.stateDirectory } }
        set { settings.withLock { $0.stateDirectory = newValue } }
    }

    /// How long a partial file kept for resume data stays before a new session sweeps it (7 days).
    public var resumeDataLifetime: TimeInterval {
        get { settings.withLock { $0.resumeDataLifetime } }
        set { settings.withLock { $0.resumeDataLifetime = newValue } }
    }

    /// The certificate authorities trusted for HTTPS: the system's (default), or those of
    /// ``TrustRoots/init(adding:)`` besides. Linux only: where Apple's apps answer an
    /// authentication challenge to trust a server, a program here names the authority.
    public var trustRoots: TrustRoots {
        get { settings.withLock { $0.trustRoots } }
        set { settings.withLock { $0.trustRoots = newValue } }
    }

    /// The proxies downloads go through: by default the environment's (`https_proxy`,
    /// `http_proxy`, `all_proxy`, `no_proxy`, as curl reads them), as Apple's sessions follow the
    /// system's proxy settings. Linux only, in place of `connectionProxyDictionary`.
    public var proxies: ProxySettings {
        get { settings.withLock { $0.proxies } }
        set { settings.withLock { $0.proxies = newValue } }
    }

    /// Whether a download answered with an HTTP error status (a 4xx the session does not retry)
    /// delivers the server's error body as its file, as Apple's sessions do: through
    /// `didFinishDownloadingTo`, with the task's `response` carrying the status, and no error.
    /// Default `false`: the task fails with `URLError.badServerResponse` naming the status (a
    /// port whose finish method checks `statusCode` needs `true`). 408, 429 and 5xx answers are
    /// retried either way; a task that fails after them has no error body. A redirect the
    /// delegate refuses is delivered (or fails) the same way.
    public var deliversHTTPErrorBodies: Bool {
        get { settings.withLock { $0.deliversHTTPErrorBodies } }
        set { settings.withLock { $0.deliversHTTPErrorBodies = newValue } }
    }

    /// Where data and upload tasks keep cookies: Foundation's `HTTPCookieStorage.shared` by
    /// default, a jar of its own in memory for ``ephemeral``; `nil` for none. Cookies are stored
    /// from every response of a redirect chain and sent with later requests. Download tasks
    /// neither send nor store them.
    public var httpCookieStorage: HTTPCookieStorage? {
        get { settings.withLock { $0.httpCookieStorage } }
        set { settings.withLock { $0.httpCookieStorage = newValue } }
    }

    /// Whether requests carry the cookies stored for their URL (default `true`); a request's
    /// own `Cookie` field, or its `httpShouldHandleCookies` set to `false`, wins.
    public var httpShouldSetCookies: Bool {
        get { settings.withLock { $0.httpShouldSetCookies } }
        set { settings.withLock { $0.httpShouldSetCookies = newValue } }
    }

    /// Where data and upload tasks find credentials for `.performDefaultHandling` of an HTTP
    /// authentication challenge (the protection space's default credential, on the first
    /// challenge only), and keep those a delegate gives with a persistence other than `.none`:
    /// Foundation's `URLCredentialStorage.shared` by default, one of its own for ``ephemeral``.
    public var urlCredentialStorage: URLCredentialStorage? {
        get { settings.withLock { $0.urlCredentialStorage } }
        set { settings.withLock { $0.urlCredentialStorage = newValue } }
    }

    /// Which cookies responses may store (default `.onlyFromMainDocumentDomain`, as Foundation's:
    /// a request without a `mainDocumentURL` stores its own).
    public var httpCookieAcceptPolicy: HTTPCookie.AcceptPolicy {
        get { settings.withLock { $0.httpCookieAcceptPolicy } }
        set { settings.withLock { $0.httpCookieAcceptPolicy = newValue } }
    }

    /// Whether a background session hands its tasks to the per-user transfer agent, so that
    /// they go on after the process ends, as Apple's background sessions do (default `true`).
    ///
    /// The agent is `transfers-agent`, an executable product of this package, listening on
    /// `$XDG_RUNTIME_DIR/transfers/agent.sock`. When none answers, the session starts
    /// ``agentExecutable``; with none to start the session's
    /// downloads run in this process only (said once in its log) and go on at its next launch.
    /// `TRANSFERS_AGENT=0` in the environment turns the agent off, as `false` does. Default
    /// sessions never use it.
    public var usesTransferAgent: Bool {
        get { settings.withLock { $0.usesTransferAgent } }
        set { settings.withLock { $0.usesTransferAgent = newValue } }
    }

    /// The transfer agent's executable, started (a process of its own) when no agent answers.
    /// Default: `TRANSFERS_AGENT` from the environment (an absolute path), else `transfers-agent`
    /// beside this process's executable, else on `PATH`; `nil`: an agent already running is
    /// used, none started.
    public var agentExecutable: URL? {
        get { settings.withLock { $0.agentExecutable } }
        set { settings.withLock { $0.agentExecutable = newValue } }
    }

    /// The environment the agent's socket is found from (`XDG_RUNTIME_DIR`, …); `nil`: this
    /// process's. For tests, which must not reach a real agent of the machine's user.
    var agentEnvironment: [String: String]? {
        get { settings.withLock { $0.agentEnvironment } }
        set { settings.withLock { $0.agentEnvironment = newValue } }
    }

    /// Run when a task's start has returned from the engine, before the task records its
    /// transfer: the moment its transfer's first questions and events may already arrive. For
    /// tests, which hold it open to show those are not lost.
    var afterEngineStart: (@Sendable () async -> Void)? {
        get { settings.withLock { $0.afterEngineStart } }
        set { settings.withLock { $0.afterEngineStart = newValue } }
    }

    /// Where the session logs (default: nowhere).
    public var logger: Logger {
        get { settings.withLock { $0.logger } }
        set { settings.withLock { $0.logger = newValue } }
    }

    /// An independent copy, as a session takes when it is created.
    func copy() -> ResumableURLSessionConfiguration {
        ResumableURLSessionConfiguration(identifier: identifier, settings.withLock { $0 })
    }

    /// The engine's configuration for these settings.
    ///
    /// A default session's journal ends with its process, so a finished transfer leaves it as it
    /// completes (one journal write saved per file). A background session keeps it until the
    /// delegate has had the file, so a crash in between delivers it again at the next launch.
    var engineConfiguration: TransferSessionConfiguration {
        let settings = settings.withLock { $0 }
        let perHost = max(1, settings.httpMaximumConnectionsPerHost)
        var configuration = TransferSessionConfiguration(
            maxConcurrentTransfers: max(perHost, 16), maxTransfersPerHost: perHost, retryPolicy: settings.retryPolicy,
            stallTimeout: .milliseconds(Int64(max(0.001, settings.timeoutIntervalForRequest) * 1000)),
            durability: settings.durability, forgetsCompletedTransfers: identifier == nil)
        configuration.trustRoots = settings.trustRoots
        configuration.proxies = settings.proxies
        configuration.deliversErrorBodies = settings.deliversHTTPErrorBodies
        configuration.keepsJournalInMemory = settings.isEphemeral
        return configuration
    }

    /// `$XDG_STATE_HOME/resumable-urlsession`, or `~/.local/state/resumable-urlsession`.
    static func defaultStateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        // The XDG spec: a relative path is invalid and must be ignored.
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state, isDirectory: true).appendingPathComponent("resumable-urlsession")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".local/state/resumable-urlsession", isDirectory: true)
    }
}

extension ResumableURLSessionConfiguration {
    /// The header fields `request` is sent with: the configuration's `httpAdditionalHeaders`,
    /// then the request's own, which replace any of the same name compared without case (as
    /// Apple's and Foundation's sessions do).
    func headers(for request: URLRequest) -> [String: String] {
        let own = request.allHTTPHeaderFields ?? [:]
        let named = Set(own.keys.map { $0.lowercased() })
        return (httpAdditionalHeaders ?? [:]).filter { !named.contains($0.key.lowercased()) }.merging(own) { $1 }
    }
}

extension ResumableURLSessionConfiguration {
    /// The idle time a request may wait for its answer: its own `timeoutInterval` when it was set
    /// (anything but `URLRequest`'s default, 60 s), else ``timeoutIntervalForRequest``.
    func timeout(for request: URLRequest) -> TimeInterval {
        request.timeoutInterval != 60 && request.timeoutInterval > 0 ? request.timeoutInterval : timeoutIntervalForRequest
    }
}
