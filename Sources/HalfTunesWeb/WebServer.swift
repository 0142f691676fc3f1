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
    ///   - before: Services to run first (the DemoCatalog).
    ///   - say: Where lines for the user go (the URL to open, warnings).
    public static func run(
        home: HalfTunesHome, host: String, port: Int, tagging: TaggingOptions = TaggingOptions(),
        trustRoots: TrustRoots = .system, proxies: ProxySettings = .none, bandwidthLimit: Int? = nil,
        catalogConfiguration: @escaping @Sendable () async throws -> CatalogConfiguration,
        before: [any Service] = [], say: @escaping @Sendable (String) -> Void
    ) async throws {
        if let warning = exposureWarning(for: host) { say(warning) }
        let logger = Logger(label: "halftunes.serve")
        let service = try await openDownloads(
            home: home, tagging: tagging, trustRoots: trustRoots, proxies: proxies, bandwidthLimit: bandwidthLimit)
        let launcher = Launcher(
            service: service, home: home, host: host, port: port, catalogConfiguration: catalogConfiguration, say: say,
            logger: logger)
        // A web app that cannot start (its port in use, say) shuts the others down gracefully, as
        // Ctrl-C does: cancelled, a running DemoCatalog logged errors of its own beside the one
        // line that says why.
        let services: [ServiceGroupConfiguration.ServiceConfiguration] =
            ([DownloadsLifecycle(service)] + before).map { .init(service: $0) }
            + [.init(service: launcher, failureTerminationBehavior: .gracefullyShutdownGroup)]
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            ServerInfo.remove(from: home)
            await service.close()
            throw error
        }
        ServerInfo.remove(from: home)
        say("HalfTunes stopped; unfinished downloads resume next time.")
    }

    /// The downloads of a process that serves them (`serve`, the agent): previews and covers
    /// fetched trusting `trustRoots`, through `proxies`, under `bandwidthLimit`.
    static func openDownloads(
        home: HalfTunesHome, tagging: TaggingOptions, trustRoots: TrustRoots, proxies: ProxySettings, bandwidthLimit: Int?
    ) async throws -> DownloadService {
        var configuration = TransferSessionConfiguration()
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
        let service: DownloadService
        let home: HalfTunesHome
        let host: String
        let port: Int
        let catalogConfiguration: @Sendable () async throws -> CatalogConfiguration
        let say: @Sendable (String) -> Void
        let logger: Logger

        func run() async throws {
            let catalog = try ITunesCatalog(
                configuration: try await catalogConfiguration(), logger: Logger(label: "halftunes.catalog"))
            let web = try WebApp(service: service, catalog: catalog, logger: logger)
            await service.setRefresher { id in try? await catalog.lookupAfresh(id: id) }
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
