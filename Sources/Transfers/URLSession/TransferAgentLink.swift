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

/// How a background session reaches the per-user transfer agent (`transfers-agent`), which
/// takes its tasks over when the process ends: HTTP on the agent's Unix socket,
/// `$XDG_RUNTIME_DIR/transfers/agent.sock` (else under `/run/user/<uid>`, `$XDG_STATE_HOME` or
/// `~/.local/state`: ``AgentSocket/resolve(folder:name:environment:userRuntimeFolder:)``), spoken to only when the listener is this user's (`SO_PEERCRED`).
struct TransferAgentLink: Sendable {
    let place: AgentSocket
    var socket: String { place.socket.path }
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
        return TransferAgentLink(
            place: BackgroundClaim.agentSocket(environment: environment), executable: configuration.agentExecutable?.path,
            log: configuration.stateDirectory.appendingPathComponent("agent.log"), logger: configuration.logger)
    }

    /// The agent's executable a configuration starts by default: `TRANSFERS_AGENT` (an absolute
    /// path), else `transfers-agent` beside this process's executable, else on `PATH`.
    static func defaultExecutable(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        if let named = environment["TRANSFERS_AGENT"], named.hasPrefix("/") { return URL(fileURLWithPath: named) }
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")).map {
            URL(fileURLWithPath: $0).deletingLastPathComponent().path
        }
        let folders = (own.map { [$0] } ?? []) + (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        return folders.lazy.map { URL(fileURLWithPath: $0).appendingPathComponent("transfers-agent") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Hands `claim` to the agent, starting one if none answers.
    ///
    /// - Returns: `nil` once the agent holds the claim, else why not (for the session's log).
    func claim(_ claim: BackgroundClaim) async -> String? {
        switch PeerCredentials.probe(socketAt: socket) {
        case .answered(let peer) where peer.uid != geteuid():
            return "the socket \(socket) is another user's (uid \(peer.uid))"
        case .answered:
            return await send(claim)
        case .absent, .refused:
            guard let executable else { return "no agent answers on \(socket) and none is named to start" }
            let outcome: AgentStart.Outcome
            do {
                outcome = try await AgentStart.launch(
                    executable, [], socket: place, log: log, environment: nil, lostRace: { $0.contains("already runs") })
            } catch {
                return "cannot start the agent \(executable): \(error.reason)"
            }
            switch outcome {
            case .running(let pid):
                logger.info("started the transfer agent", metadata: ["pid": "\(pid)", "executable": "\(executable)"])
                return await send(claim)
            case .failed(let line):
                return "the agent \(executable) did not start\(line.map { ": \($0)" } ?? "") (its log: \(log.path))"
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
}
