import Foundation
import HalfTunesKit
import Hummingbird
import ITunesSearch
import Logging

/// The local web app: the tutorial's screen in a browser, a JSON API on track ids, live events,
/// and the library's files — served by the process that owns the downloads, or by a client of
/// the agent that does (every handler acts through one ``DownloadControl``).
public struct WebApp: Sendable {
    /// The app's downloads and library, when this process owns them (`nil` in a client of the agent).
    public let service: DownloadService?
    /// The folder of the library's files.
    let library: URL
    /// The per-process secret that state-changing requests must carry (CSRF).
    public let token: String
    /// What every handler acts through.
    let control: any DownloadControl
    let assets: StaticAssets
    let logger: Logger
    /// What keeps the server answering when clients misbehave.
    public let limits: ConnectionLimits
    let connections: ConnectionCount

    /// Creates the app over downloads this process owns, searching `catalog`.
    ///
    /// - Parameter onConnectionChange: Told of each connection opened or closed.
    public init(
        service: DownloadService, catalog: ITunesCatalog, token: String = WebApp.makeToken(), limits: ConnectionLimits = .init(),
        logger: Logger, onConnectionChange: (@Sendable () -> Void)? = nil
    ) throws {
        try self.init(
            control: LocalDownloadControl(service: service, catalog: { _ in catalog }, logger: logger), service: service,
            library: service.home.library, token: token, limits: limits, logger: logger, onConnectionChange: onConnectionChange)
    }

    /// Creates the app over another process's downloads (the agent's), acted on through
    /// `control`, the files of `home`'s library served from this process.
    public init(
        control: any DownloadControl, home: HalfTunesHome, token: String = WebApp.makeToken(),
        limits: ConnectionLimits = .init(), logger: Logger
    ) throws {
        try self.init(
            control: control, service: nil, library: home.library, token: token, limits: limits, logger: logger,
            onConnectionChange: nil)
    }

    private init(
        control: any DownloadControl, service: DownloadService?, library: URL, token: String, limits: ConnectionLimits,
        logger: Logger, onConnectionChange: (@Sendable () -> Void)?
    ) throws {
        self.limits = limits
        self.connections = ConnectionCount(limit: limits.maximumConnections, onChange: onConnectionChange)
        self.service = service
        self.library = library
        self.token = token
        self.logger = logger
        self.control = control
        self.assets = try StaticAssets.load()
    }

    /// Whether the track's download is still under way (a partial file being played may grow).
    func isUnderway(_ trackID: Int) async -> Bool {
        if let service { return await service.isUnderway(trackID: trackID) }
        guard let document = try? await control.playTarget(trackID) else { return false }
        return document.state == .downloading || document.state == .queued
    }

    /// A random token for one process's life.
    public static func makeToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

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
