import Foundation
import HTTPTypes
import HalfTunesKit
import Hummingbird
import ITunesSearch
import Logging

/// The local web app: the tutorial's screen in a browser, a JSON API on track ids, live events,
/// and the library's files — served by the process that owns the downloads (the agent), every
/// handler acting through one ``DownloadControl`` over its ``DownloadService``.
public struct WebApp: Sendable {
    /// The app's downloads and library.
    public let service: DownloadService
    /// The folder of the library's files.
    let library: URL
    /// The per-page secret that state-changing requests must carry (CSRF).
    public let token: String
    /// What every handler acts through.
    let control: any DownloadControl
    let assets: StaticAssets
    package let logger: Logger
    /// What keeps the server answering when clients misbehave.
    public let limits: ConnectionLimits
    package let connections: ConnectionCount

    /// Creates the app over `service`'s downloads, searching `catalog`.
    ///
    /// - Parameters:
    ///   - lookAhead: A catalog lookup under way whose tracks the first start of its ids takes.
    ///   - onConnectionChange: Told of each connection opened or closed.
    public init(
        service: DownloadService, catalog: ITunesCatalog, lookAhead: LookAhead? = nil, token: String = WebApp.makeToken(),
        limits: ConnectionLimits = .init(), logger: Logger, onConnectionChange: (@Sendable () -> Void)? = nil
    ) throws {
        self.limits = limits
        self.connections = ConnectionCount(limit: limits.maximumConnections, onChange: onConnectionChange)
        self.service = service
        self.library = service.home.library
        self.token = token
        self.logger = logger
        self.control = LocalDownloadControl(service: service, catalog: { _ in catalog }, lookAhead: lookAhead, logger: logger)
        self.assets = try StaticAssets.load()
    }

    /// Whether the track's download is still under way (a partial file being played may grow).
    func isUnderway(_ trackID: Int) async -> Bool { await service.isUnderway(trackID: trackID) }

    /// The header that carries the page's token.
    package static var tokenHeader: HTTPField.Name { RequestGuard<WebContext>.tokenHeader }

    /// A random token for one process's life.
    public static func makeToken() -> String { PageRequest.makeToken() }

    /// The Hummingbird application, bound to `host:port` (port 0 picks a free one).
    ///
    /// - Parameter onReady: Called with the URL to open once the server listens.
    public func application(
        host: String = "127.0.0.1", port: Int = 8080, onReady: @escaping @Sendable (URL) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let boundPort = PortBox()
        return Application(
            router: makeRouter(host: host, port: boundPort),
            server: .guardedHTTP1(limits: limits, connections: connections),
            configuration: .init(address: .hostname(host, port: port), serverName: "HalfTunes"),
            onServerRunning: { channel in
                let actual = channel.localAddress?.port ?? port
                boundPort.set(actual)
                let urlHost = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : (host.contains(":") ? "[\(host)]" : host)
                await onReady(URL(string: "http://\(urlHost):\(actual)")!)
            },
            logger: logger)
    }

    func makeRouter(host: String, port: PortBox) -> Router<WebContext> {
        let router = Router(context: WebContext.self)
        router.add(middleware: LazyGuard(host: host, port: port, token: token))
        router.add(middleware: ErrorMiddleware())
        addPageRoutes(to: router)
        addAPIRoutes(to: router)
        addEventRoutes(to: router)
        addLibraryFileRoutes(to: router)
        return router
    }
}

/// The guard, built once the port is known (it may be chosen by the system).
struct LazyGuard<Context: RequestContext>: RouterMiddleware {
    let host: String
    let port: PortBox
    let token: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        try await RequestGuard<Context>(host: host, port: port.value, token: token).handle(request, context: context, next: next)
    }
}
