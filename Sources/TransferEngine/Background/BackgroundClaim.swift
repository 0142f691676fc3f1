import Foundation
import NetworkBasics
import SystemBasics

/// A process's claim on a background session, as it hands it to the transfer agent (the body of
/// `PUT /api/background-sessions`): the session's folder, the process that owns it now, and the
/// settings its transfers go on with once that process has ended. See ``BackgroundKeeper``.
public struct BackgroundClaim: Codable, Sendable, Hashable {
    /// The session's identifier (``TransferSession/open(identifier:directory:configuration:clock:logger:)``'s).
    public var identifier: String
    /// The session's folder: its journal and lock.
    public var directory: String
    /// The process that owns the session now.
    public var pid: Int32
    /// What of the owner's ``TransferSessionConfiguration`` an agent can take over.
    public var settings: Settings

    /// The settings a session keeps across the hand-over (all of them plain values).
    public struct Settings: Codable, Sendable, Hashable {
        public var maxConcurrentTransfers: Int
        public var maxTransfersPerHost: Int
        public var retryPolicy: RetryPolicy
        public var stallTimeout: Duration
        public var durability: Durability
        public var deliversErrorBodies: Bool
        /// The PEM files of the extra certificate authorities trusted (``TrustRoots/files``).
        public var trustRootFiles: [String]
        public var proxies: ProxySettings
    }

    /// The claim of the session at `directory`, owned by this process, with `configuration`'s settings.
    public init(identifier: String, directory: URL, configuration: TransferSessionConfiguration) {
        self.identifier = identifier
        self.directory = directory.standardizedFileURL.path
        self.pid = getpid()
        settings = Settings(
            maxConcurrentTransfers: configuration.maxConcurrentTransfers,
            maxTransfersPerHost: configuration.maxTransfersPerHost, retryPolicy: configuration.retryPolicy,
            stallTimeout: configuration.stallTimeout, durability: configuration.durability,
            deliversErrorBodies: configuration.deliversErrorBodies, trustRootFiles: configuration.trustRoots.files,
            proxies: configuration.proxies)
    }

    /// The configuration an agent opens the session with.
    ///
    /// - Throws: ``TransferError`` (`.invalidRequest`) for a certificate file that is gone.
    public func configuration() throws(TransferError) -> TransferSessionConfiguration {
        var configuration = TransferSessionConfiguration(
            maxConcurrentTransfers: settings.maxConcurrentTransfers, maxTransfersPerHost: settings.maxTransfersPerHost,
            retryPolicy: settings.retryPolicy, stallTimeout: settings.stallTimeout, durability: settings.durability)
        configuration.deliversErrorBodies = settings.deliversErrorBodies
        configuration.proxies = settings.proxies
        if !settings.trustRootFiles.isEmpty {
            do { configuration.trustRoots = try TrustRoots(adding: settings.trustRootFiles) } catch {
                throw TransferError(.invalidRequest, error.message, permanent: true)
            }
        }
        return configuration
    }
}

extension BackgroundClaim {
    /// The transfer agent's socket, where claims go: `transfers/agent.sock` under
    /// `$XDG_RUNTIME_DIR`, else `/run/user/<uid>` (when it is the user's 0700 folder), else
    /// `$XDG_STATE_HOME`, else `~/.local/state`.
    public static func agentSocket(environment: [String: String] = ProcessInfo.processInfo.environment) -> AgentSocket {
        AgentSocket.resolve(folder: "transfers", name: "agent.sock", environment: environment)
    }
}
