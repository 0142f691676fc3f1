import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NetworkBasics
import Synchronization
import SystemBasics

#if canImport(Glibc)
    import Glibc
#endif

/// How a background session reaches the per-user transfer agent (`halftunes agent`), which
/// takes its tasks over when the process ends: HTTP on the agent's Unix socket,
/// `$XDG_RUNTIME_DIR/halftunes/agent.sock` (else under `$XDG_STATE_HOME`, else
/// `~/.local/state`), spoken to only when the listener is this user's (`SO_PEERCRED`).
struct TransferAgentLink: Sendable {
    let socket: String
    /// Started when no agent answers; `nil`: a running agent only.
    let executable: String?
    /// Where a started agent's output goes.
    let log: URL
    let logger: Logger

    /// The link `configuration` asks for; `nil` when it turns the agent off.
    static func resolve(_ configuration: ResumableURLSessionConfiguration) -> TransferAgentLink? {
        let environment = configuration.agentEnvironment ?? ProcessInfo.processInfo.environment
        guard configuration.usesTransferAgent else { return nil }
        if let named = environment["TRANSFERS_AGENT"]?.lowercased(), ["0", "off", "no", "false"].contains(named) {
            return nil
        }
        func absolute(_ name: String) -> String? { environment[name].flatMap { $0.hasPrefix("/") ? $0 : nil } }
        let base =
            absolute("XDG_RUNTIME_DIR") ?? absolute("XDG_STATE_HOME")
            ?? ((environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.local/state")
        return TransferAgentLink(
            socket: base + "/halftunes/agent.sock", executable: configuration.agentExecutable?.path,
            log: configuration.stateDirectory.appendingPathComponent("agent.log"), logger: configuration.logger)
    }

    /// The agent's executable a configuration starts by default: `TRANSFERS_AGENT`, else
    /// `halftunes` on `PATH`.
    static func defaultExecutable(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        if let named = environment["TRANSFERS_AGENT"], named.hasPrefix("/") { return URL(fileURLWithPath: named) }
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.lazy.map { URL(fileURLWithPath: String($0)).appendingPathComponent("halftunes") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Hands `claim` to the agent, starting one if none answers.
    ///
    /// - Returns: `nil` once the agent holds the claim, else why not (for the session's log).
    func claim(_ claim: BackgroundClaim) async -> String? {
        var started: ExitFlag?
        var deadline = ContinuousClock.now + .seconds(10)
        while true {
            switch PeerCredentials.probe(socketAt: socket) {
            case .answered(let peer) where peer.uid != geteuid():
                return "the socket \(socket) is another user's (uid \(peer.uid))"
            case .answered:
                return await send(claim)
            case .absent, .refused:
                if started == nil {
                    guard let executable else { return "no agent answers on \(socket) and none is named to start" }
                    do { started = try start(executable) } catch { return error.message }
                } else if started?.exited.load(ordering: .acquiring) == true {
                    // It lost a race to another agent (probed a little longer) or failed.
                    deadline = min(deadline, .now + .seconds(1))
                }
                guard ContinuousClock.now < deadline else {
                    let said = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").last.map { ": \($0)" }
                    return "the agent \(executable ?? "") did not start\(said ?? "") (its log: \(log.path))"
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// Tells the agent the session was invalidated: it is not to be taken over.
    func release(_ claim: BackgroundClaim) async {
        guard case .answered(let peer) = PeerCredentials.probe(socketAt: socket), peer.uid == geteuid() else { return }
        var query = URLComponents()
        query.queryItems = [.init(name: "directory", value: claim.directory), .init(name: "pid", value: "\(claim.pid)")]
        let request = HTTPClientRequest(url: base + "/api/background-sessions?" + (query.percentEncodedQuery ?? ""))
        var delete = request
        delete.method = .DELETE
        _ = try? await HTTPClient.shared.execute(delete, timeout: .seconds(5))
    }

    private var base: String {
        "http+unix://" + (socket.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? socket)
    }

    private func send(_ claim: BackgroundClaim) async -> String? {
        var request = HTTPClientRequest(url: base + "/api/background-sessions")
        request.method = .PUT
        request.headers.add(name: "Content-Type", value: "application/json")
        do {
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(claim)))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 64 * 1024)
            guard response.status == .noContent else {
                return "the agent refused the session (HTTP \(response.status.code)): \(String(buffer: body))"
            }
            return nil
        } catch {
            return "the agent on \(socket) did not answer: \(error)"
        }
    }

    /// Set once a started agent has ended.
    final class ExitFlag: Sendable {
        let exited = Atomic<Bool>(false)
    }

    struct StartFailure: Error {
        let message: String
    }

    /// Starts the agent as a process of its own, for the default home (the socket asked for).
    private func start(_ executable: String) throws(StartFailure) -> ExitFlag {
        var environment = ProcessInfo.processInfo.environment
        for name in ["HALFTUNES_HOME", "HALFTUNES_AGENT"] { environment[name] = nil }
        try? FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            let pid = try DetachedProcess.spawn(executable, ["agent"], log: log.path, environment: environment)
            logger.info("started the transfer agent", metadata: ["pid": "\(pid)", "executable": "\(executable)"])
            // This process's child: reaped when it ends (at once, when it lost a race to another agent).
            let flag = ExitFlag()
            Thread.detachNewThread {
                var status: Int32 = 0
                _ = waitpid(pid, &status, 0)
                flag.exited.store(true, ordering: .releasing)
            }
            return flag
        } catch {
            throw StartFailure(message: "cannot start the agent \(executable): \(error.reason)")
        }
    }
}
