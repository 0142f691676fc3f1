import Foundation
import Hummingbird
import TransferEngine

extension WebApp {
    /// The agent's face: the JSON API, its events and the library's files — no page, no token —
    /// on the Unix socket at `socket`, for this user's processes only (``PeerCheckedChannel``).
    ///
    /// - Parameters:
    ///   - background: Where background sessions' claims go (``addBackgroundRoutes(to:keeper:)``).
    ///   - onReady: Called once the socket listens (made mode 0600 first).
    public func agentApplication(
        socket: String, background: BackgroundKeeper, onReady: @escaping @Sendable () async -> Void
    ) -> some ApplicationProtocol {
        let router = Router(context: WebContext.self)
        router.add(middleware: ErrorMiddleware())
        addAPIRoutes(to: router)
        addEventRoutes(to: router)
        addLibraryFileRoutes(to: router)
        addBackgroundRoutes(to: router, keeper: background)
        return Application(
            router: router,
            server: .peerCheckedHTTP1(limits: limits, connections: connections),
            configuration: .init(address: .unixDomainSocket(path: socket), serverName: "HalfTunes agent"),
            onServerRunning: { _ in
                chmod(socket, 0o600)
                await onReady()
            },
            logger: logger)
    }

    /// Connections open now (the agent's clients).
    public var openConnections: Int { connections.current }
}
