import HalfTunesWeb
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import NetworkBasics
import ServiceLifecycle
import SystemBasics
import TransfersAgent

#if canImport(Glibc)
    import Glibc
#endif

/// The agent's socket and the loop that accepts on it: each connection goes to Hummingbird's
/// HTTP/1 channel behind the peer check (``PeerCheckedChannel``), and its requests to the
/// app's router. Hummingbird's `Application` binds an address of its own; a socket-activated
/// agent must serve on the listening descriptor systemd hands it, so the agent accepts itself —
/// on that descriptor, or on a socket it binds at its path; either is made mode 0600.
///
/// On graceful shutdown it stops accepting, and ends once every connection has closed.
struct AgentListener: Service {
    /// The socket's path.
    let socket: String
    /// The listening descriptor systemd passed (``SocketActivation``), bound at `socket`; `nil`:
    /// the socket is bound now.
    let inherited: Int32?
    let channel: PeerCheckedChannel<GuardedHTTP1Channel>
    let logger: Logger
    let onReady: @Sendable () async -> Void

    /// A listener over `router`, answering as `serverName`.
    init(
        socket: String, inherited: Int32?, router: Router<WebContext>, serverName: String, limits: ConnectionLimits,
        connections: ConnectionCount, logger: Logger, onReady: @escaping @Sendable () async -> Void
    ) {
        self.socket = socket
        self.inherited = inherited
        self.channel = PeerCheckedChannel(
            inner: GuardedHTTP1Channel(
                responder: Self.responder(router: router, serverName: serverName, logger: logger), limits: limits,
                connections: connections))
        self.logger = logger
        self.onReady = onReady
    }

    func run() async throws {
        let quiescing = ServerQuiescingHelper(group: MultiThreadedEventLoopGroup.singleton)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelInitializer { server in
                server.eventLoop.makeCompletedFuture {
                    try server.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: server))
                }
            }
        let (channel, logger) = (channel, logger)
        let server: NIOAsyncChannel<PeerCheckedChannel<GuardedHTTP1Channel>.Value, Never> =
            if let inherited {
                try await bootstrap.bind(NIOBSDSocket.Handle(inherited)) { channel.setup(channel: $0, logger: logger) }
            } else {
                try await bootstrap.bind(unixDomainSocketPath: socket) { channel.setup(channel: $0, logger: logger) }
            }
        chmod(socket, 0o600)
        await onReady()
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                do {
                    try await server.executeThenClose { inbound in
                        for try await connection in inbound {
                            group.addTask { await channel.handle(value: connection, logger: logger) }
                        }
                    }
                } catch {
                    logger.error("the agent's socket failed: \(error)")
                }
            }
        } onGracefulShutdown: {
            quiescing.initiateShutdown(promise: nil)
        }
    }

    /// What Hummingbird's `Application` does with each request: the router's response (a 500
    /// for an error no middleware turned into one), with the server's name.
    static func responder(
        router: Router<WebContext>, serverName: String, logger: Logger
    ) -> HTTPChannelHandler.Responder {
        let responder = router.buildResponder()
        return { request, writer, channel in
            let context = WebContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error
            } catch {
                logger.debug("unhandled error: \(error)")
                response = Response(status: .internalServerError)
            }
            response.headers[.server] = serverName
            try await writer.write(response: response.head, body: response.body)
        }
    }
}
