import Foundation
import Hummingbird
import TransferEngine

extension WebApp {
    /// The agent's face: the JSON API, its events and the library's files — no page, no token —
    /// on the Unix socket `source` names, for this user's processes only (``PeerCheckedChannel``).
    ///
    /// - Parameters:
    ///   - background: Where background sessions' claims go (``addBackgroundRoutes(to:keeper:)``).
    ///   - status: What `GET /api/agent` answers, but for its background sessions (the keeper's).
    ///   - onReady: Called once the socket listens (made mode 0600 first when bound here).
    func agentListener(
        source: AgentListener.Source, background: BackgroundKeeper, status: AgentStatus,
        onReady: @escaping @Sendable () async -> Void
    ) -> AgentListener {
        let router = Router(context: WebContext.self)
        router.add(middleware: ErrorMiddleware())
        addAPIRoutes(to: router)
        addEventRoutes(to: router)
        addLibraryFileRoutes(to: router)
        addBackgroundRoutes(to: router, keeper: background)
        router.get("api/agent") { _, _ in
            var answer = status
            answer.backgroundSessions = await background.sessions().map {
                BackgroundSessionSummary(
                    identifier: $0.claim.identifier, directory: $0.claim.directory, pid: $0.claim.pid, running: $0.running)
            }
            return try json(answer)
        }
        return AgentListener(
            source: source, router: router, serverName: "HalfTunes agent", limits: limits, connections: connections,
            logger: logger, onReady: onReady)
    }

    /// Connections open now (the agent's clients).
    public var openConnections: Int { connections.current }
}
