import Foundation
import HalfTunesKit
import HalfTunesWeb
import Hummingbird
import ITunesSearch
import Logging
import ServiceLifecycle

/// Runs the web app over the app's downloads until SIGINT or SIGTERM.
enum WebServing {
    /// Serves `catalogConfiguration`'s catalog; `before` lists services to run first (the DemoCatalog).
    static func run(
        home: HalfTunesHome, host: String, port: Int, catalogConfiguration: @escaping @Sendable () async throws -> CatalogConfiguration,
        before: [any Service] = []
    ) async throws {
        if !["127.0.0.1", "localhost", "::1"].contains(host) {
            Terminal.warn("warning: listening on \(host): anyone who can reach this address can use HalfTunes")
        }
        let logger = Logger(label: "halftunes.serve")
        let service = try await DownloadService.open(home: home, logger: Logger(label: "halftunes.downloads"))
        let launcher = WebLauncher(
            service: service, home: home, host: host, port: port, catalogConfiguration: catalogConfiguration, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [DownloadsLifecycle(service)] + before + [launcher],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            ServerInfo.remove(from: home)
            await service.close()
            throw error
        }
        ServerInfo.remove(from: home)
        Terminal.write("HalfTunes stopped; unfinished downloads resume next time.\n")
    }
}

/// Starts the web app once the catalog is known (the DemoCatalog's port is chosen at start).
struct WebLauncher: Service {
    let service: DownloadService
    let home: HalfTunesHome
    let host: String
    let port: Int
    let catalogConfiguration: @Sendable () async throws -> CatalogConfiguration
    let logger: Logger

    func run() async throws {
        let catalog = try ITunesCatalog(configuration: try await catalogConfiguration(), logger: Logger(label: "halftunes.catalog"))
        let web = try WebApp(service: service, catalog: catalog, logger: logger)
        let home = home
        let token = web.token
        try await web.application(host: host, port: port) { url in
            do { try ServerInfo(url: url, token: token).write(to: home) } catch {
                Terminal.warn("warning: cannot write \(home.root.path)/server.json: other commands will not find this server")
            }
            Terminal.write("HalfTunes is running at \(url)/ — open it in a browser. Ctrl-C stops it.\n")
        }
        .run()
    }
}
