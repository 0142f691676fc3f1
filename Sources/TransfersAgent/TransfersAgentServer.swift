import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import SystemBasics
import TransferEngine

#if canImport(Glibc)
    import Glibc
#endif

/// The per-user transfer agent (`transfers-agent`): it takes over the background sessions of
/// `ResumableURLSession` when their processes end, and goes on with their downloads. It knows
/// nothing of what is downloaded. It listens on ``socket(environment:)``, in a folder only its
/// user may enter, answers this user's processes only (`SO_PEERCRED`), and ends once it has had
/// no session to watch or run for its idle time.
public enum TransfersAgentServer {
    /// The agent's socket: `$XDG_RUNTIME_DIR/transfers/agent.sock`, else under `/run/user/<uid>`
    /// (when it is the user's 0700 folder), `$XDG_STATE_HOME` or `~/.local/state` (where
    /// `ResumableURLSession` looks for it).
    public static func socket(environment: [String: String] = ProcessInfo.processInfo.environment) -> AgentSocket {
        BackgroundClaim.agentSocket(environment: environment)
    }

    /// Why the agent cannot run: one line.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Serves background sessions on `socket` until SIGINT or SIGTERM, or until it has been idle
    /// for `idleExit` (`nil`: until a signal).
    ///
    /// - Parameter onReady: Called once the socket listens (mode 0600).
    /// - Throws: ``Failure`` when the socket's folder is not the user's alone, or another agent
    ///   runs on the socket ("already runs", naming its process).
    public static func run(
        socket: AgentSocket, idleExit: Duration?, logger: Logger, onReady: @escaping @Sendable () async -> Void = {}
    ) async throws {
        do { try socket.prepareFolder() } catch { throw Failure(description: error.description) }
        if case .running(let pid) = socket.probe() { throw alreadyRuns(socket, pid: pid) }
        let lock = open(socket.lockFile.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else {
            throw Failure(description: "cannot open \(socket.lockFile.path): \(String(cString: strerror(errno)))")
        }
        defer { close(lock) }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            let pid: Int32? = if case .running(let pid) = socket.probe() { pid } else { nil }
            throw alreadyRuns(socket, pid: pid)
        }
        socket.removeStaleSocket()
        let keeper = BackgroundKeeper(logger: logger)
        let path = socket.socket.path
        let application = Application(
            router: BackgroundRoutes.router(keeper: keeper, socket: path),
            server: HTTPServerBuilder { responder in PeerCheckedChannel(inner: HTTP1Channel(responder: responder)) },
            configuration: .init(address: .unixDomainSocket(path: path), serverName: "transfers-agent"),
            onServerRunning: { _ in
                chmod(path, 0o600)
                await onReady()
            },
            logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: application)]
        if let idleExit {
            services.append(
                .init(service: IdleExit(keeper: keeper, idle: idleExit), successTerminationBehavior: .gracefullyShutdownGroup))
        }
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        defer { unlink(path) }
        do { try await group.run() } catch {
            await keeper.close()
            throw error
        }
        await keeper.close()
    }

    private static func alreadyRuns(_ socket: AgentSocket, pid: Int32?) -> Failure {
        Failure(description: "a transfer agent already runs\(pid.map { " (process \($0))" } ?? ""), on \(socket.socket.path)")
    }

    /// Ends the agent once no background session has been watched or run for `idle`.
    struct IdleExit: Service {
        let keeper: BackgroundKeeper
        let idle: Duration

        func run() async throws {
            var idleSince = ContinuousClock.now
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                if await keeper.isBusy { idleSince = .now }
                if ContinuousClock.now - idleSince >= idle { return }
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
    }
}
