import Foundation
import HalfTunesKit
import ITunesSearch
import Logging
import NetworkBasics
import ServiceLifecycle
import TransferEngine

/// Runs the web app over a home's downloads until SIGINT or SIGTERM: what `halftunes serve` and
/// `halftunes demo` are.
public enum WebServer {
    /// Serves the catalog `catalogConfiguration` names (it may wait for a catalog in `before` to start).
    ///
    /// - Parameters:
    ///   - tagging: Whether finished downloads get their tags and cover.
    ///   - trustRoots: The certificate authorities previews and covers are fetched trusting.
    ///   - proxies: The proxies they are fetched through.
    ///   - bandwidthLimit: The cap on all downloads together, bytes a second (`nil`: none).
    ///   - agent: Given, the page is a client of the home's agent (started if none runs), which
    ///     owns the downloads: they go on when the server stops. `nil`, or an agent that cannot
    ///     start (said in one line), and this process owns them.
    ///   - before: Services to run first (the DemoCatalog).
    ///   - say: Where lines for the user go (the URL to open, warnings).
    public static func run(
        home: HalfTunesHome, host: String, port: Int, tagging: TaggingOptions = TaggingOptions(),
        trustRoots: TrustRoots = .system, proxies: ProxySettings = .none, bandwidthLimit: Int? = nil,
        catalogConfiguration: @escaping @Sendable () async throws -> CatalogConfiguration, agent: AgentLink? = nil,
        before: [any Service] = [], say: @escaping @Sendable (String) -> Void
    ) async throws {
        if let warning = exposureWarning(for: host) { say(warning) }
        let logger = Logger(label: "halftunes.serve")
        if let agent {
            let address = AgentAddress.resolve(for: home)
            do {
                let (pid, started) = try await AgentLauncher.ensureRunning(
                    home: home, address: address, arguments: agent.arguments)
                if !started { agent.notes.forEach(say) }
                return try await serve(
                    through: address, pid: pid, arguments: agent.arguments, home: home, host: host, port: port,
                    before: before, say: say, logger: logger)
            } catch let error as DownloadError {
                say("warning: \(error); the downloads run in this process (they stop when it does)")
            }
        }
        let service = try await openDownloads(
            home: home, tagging: tagging, trustRoots: trustRoots, proxies: proxies, bandwidthLimit: bandwidthLimit)
        let launcher = Launcher(home: home, host: host, port: port, say: say, logger: logger) {
            let catalog = try ITunesCatalog(
                configuration: try await catalogConfiguration(), logger: Logger(label: "halftunes.catalog"))
            await service.setRefresher { id in try? await catalog.lookupAfresh(id: id) }
            return try WebApp(service: service, catalog: catalog, logger: logger)
        }
        // A web app that cannot start (its port in use, say) shuts the others down gracefully, as
        // Ctrl-C does: cancelled, a running DemoCatalog logged errors of its own beside the one
        // line that says why.
        let services: [ServiceGroupConfiguration.ServiceConfiguration] =
            ([DownloadsLifecycle(service)] + before).map { .init(service: $0) }
            + [.init(service: launcher, failureTerminationBehavior: .gracefullyShutdownGroup)]
        do {
            try await runGroup(services, logger: logger)
        } catch {
            ServerInfo.remove(from: home)
            await service.close()
            throw error
        }
        ServerInfo.remove(from: home)
        say("HalfTunes stopped; unfinished downloads resume next time.")
    }

    /// The page as a client of the agent on `address` (process `pid`), kept up by an ``AgentTether``.
    private static func serve(
        through address: AgentAddress, pid: Int32, arguments: [String], home: HalfTunesHome, host: String, port: Int,
        before: [any Service], say: @escaping @Sendable (String) -> Void, logger: Logger
    ) async throws {
        let web = try WebApp(control: RemoteDownloadControl(agent: address, pid: pid), home: home, logger: logger)
        let launcher = Launcher(home: home, host: host, port: port, say: say, logger: logger) { web }
        let tether = AgentTether(home: home, address: address, arguments: arguments, say: say)
        let services: [ServiceGroupConfiguration.ServiceConfiguration] =
            ([tether] + before).map { .init(service: $0) }
            + [.init(service: launcher, failureTerminationBehavior: .gracefullyShutdownGroup)]
        defer { ServerInfo.remove(from: home) }
        try await runGroup(services, logger: logger)
        say("HalfTunes stopped; the agent goes on with the downloads (halftunes agent --status).")
    }

    private static func runGroup(_ services: [ServiceGroupConfiguration.ServiceConfiguration], logger: Logger) async throws {
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// The downloads of a process that serves them (`serve`, the agent): previews and covers
    /// fetched trusting `trustRoots`, through `proxies`, under `bandwidthLimit`, their files
    /// surviving what `durability` says.
    static func openDownloads(
        home: HalfTunesHome, tagging: TaggingOptions, trustRoots: TrustRoots, proxies: ProxySettings,
        durability: Durability = .powerLoss, bandwidthLimit: Int?
    ) async throws -> DownloadService {
        var configuration = TransferSessionConfiguration()
        configuration.durability = durability
        configuration.trustRoots = trustRoots
        configuration.proxies = proxies
        configuration.bandwidthLimit = bandwidthLimit
        return try await DownloadService.open(
            home: home, configuration: configuration, tagging: tagging, logger: Logger(label: "halftunes.downloads"))
    }

    /// What to tell the user before listening on `host`: a warning unless it is a loopback address.
    public static func exposureWarning(for host: String) -> String? {
        guard HostClass(host) != .loopback else { return nil }
        return "warning: listening on \(host): anyone who can reach this address can use HalfTunes"
    }

    /// Starts the web app once the catalog is known (the DemoCatalog's port is chosen at start).
    struct Launcher: Service {
        let home: HalfTunesHome
        let host: String
        let port: Int
        let say: @Sendable (String) -> Void
        let logger: Logger
        let makeApp: @Sendable () async throws -> WebApp

        func run() async throws {
            let web = try await makeApp()
            let (home, token, say) = (home, web.token, say)
            do {
                try await web.application(host: host, port: port) { url in
                    do { try ServerInfo(url: url, token: token).write(to: home) } catch {
                        say("warning: cannot write \(home.root.path)/server.json: other commands will not find this server")
                    }
                    say("HalfTunes is running at \(url)/ — open it in a browser. Ctrl-C stops it.")
                }
                .run()
            } catch {
                throw ListenFailure.error(error, host: host, port: port) ?? error
            }
        }
    }
}
