import ArgumentParser
import DemoCatalog
import Foundation
import HalfTunesAgent
import HalfTunesClient
import HalfTunesKit
import HalfTunesWeb
import ITunesSearch
import Logging
import ServiceLifecycle

/// `halftunes serve`: the web app, served by the home's agent (started if none runs), which owns
/// the downloads: they go on when the browser closes, and when `serve` stops. With
/// `HALFTUNES_AGENT=0`, `serve` hosts the agent itself.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the web app on this machine (downloads go on when the browser is closed).")

    @OptionGroup var server: ServerOptions
    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var tagging: TaggingOption
    @OptionGroup var rate: RateOption

    /// The agent this server is a client of: started with its options, or named when they do not apply.
    private var agentLink: AgentLink {
        AgentLink(
            arguments: AgentForwarding.arguments(catalog: catalogOptions, tagging: tagging, rate: rate),
            notes: AgentForwarding.notes(owner: "the running agent", tagging: tagging, rate: rate))
    }

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            try await ServeThroughAgent.run(
                home: homeOptions.resolved, page: PageRequest(host: server.host, port: server.port ?? 8080),
                tagging: tagging.resolved, bandwidthLimit: try rate.resolved(),
                catalogConfiguration: try catalogOptions.configuration(), agent: AgentLauncher.isEnabled() ? agentLink : nil,
                say: Terminal.say)
        }
    }
}

/// `halftunes demo`: the whole app on the offline DemoCatalog, in one process, with no network:
/// the DemoCatalog and the home's agent, serving the page.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Run the web app on the offline DemoCatalog (no network needed).")

    @Option(name: .long, help: "Port for the web app (0 picks a free one).", transform: NumberIn.parser(0...65535))
    var port = 8080

    @OptionGroup var throttle: ThrottleOption
    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var tagging: TaggingOption
    @OptionGroup var rate: RateOption

    func run() async throws {
        Terminal.bootstrapLogging()
        let catalog = DemoCatalog(logger: Logger(label: "halftunes.demo-catalog"))
        throttle.apply(to: catalog, pace: ThrottleOption.demoPace)
        let (demo, demoURL) = catalog.applicationOnFreePort()
        // The DemoCatalog runs beside the agent this process hosts, and stops after it.
        let demoGroup = ServiceGroup(configuration: .init(services: [demo], logger: Logger(label: "halftunes.demo-catalog")))
        let running = Task { try await demoGroup.run() }
        defer { running.cancel() }
        try await reportingFailures {
            guard let url = await demoURL() else { throw DownloadError(.internalError, "the DemoCatalog did not start") }
            let stopDemo = {
                await demoGroup.triggerGracefulShutdown()
                _ = try? await running.value
            }
            do {
                try await AgentServer.host(
                    home: homeOptions.resolved, page: PageRequest(host: "127.0.0.1", port: port), tagging: tagging.resolved,
                    bandwidthLimit: try rate.resolved(),
                    catalogConfiguration: CatalogConfiguration(baseURL: url, callsPerMinute: nil), say: Terminal.say)
            } catch {
                await stopDemo()
                throw error
            }
            await stopDemo()
        }
    }
}
