import Foundation
import HalfTunesKit
import HalfTunesWeb
import Hummingbird
import TransferEngine

extension WebApp {
    /// The agent's face: the JSON API, its events and the library's files — no token —
    /// on the Unix socket at `socket`, for this user's processes only (``PeerCheckedChannel``),
    /// and `GET /api/agent` (``AgentStatus``).
    ///
    /// - Parameters:
    ///   - inherited: The listening socket systemd passed (`nil`: bound here).
    ///   - home: The folder of the home whose downloads the agent owns.
    ///   - pages: Where pages asked for by `serve` processes are opened (``addPageRoute(to:pages:)``).
    ///   - onReady: Called once the socket listens (made mode 0600 first).
    func agentListener(
        socket: String, inherited: Int32?, home: String, pages: PageHost,
        onReady: @escaping @Sendable () async -> Void
    ) -> AgentListener {
        let router = Router(context: WebContext.self)
        router.add(middleware: ErrorMiddleware())
        addAPIRoutes(to: router)
        addEventRoutes(to: router)
        addLibraryFileRoutes(to: router)
        addPageRoute(to: router, pages: pages)
        router.get("api/agent") { _, _ in
            try json(AgentStatus(pid: getpid(), socket: socket, home: home, socketActivated: inherited != nil))
        }
        return AgentListener(
            socket: socket, inherited: inherited, router: router, serverName: "HalfTunes agent", limits: limits,
            connections: connections, logger: logger, onReady: onReady)
    }

    /// Connections open now (the agent's clients).
    public var openConnections: Int { connections.current }
}
