import Foundation
import HalfTunesKit
import ITunesSearch
import Logging
import NetworkBasics
import ServiceLifecycle
import TransferEngine

/// Runs the web app until SIGINT or SIGTERM: what `halftunes serve` and `halftunes demo` are.
/// The page is always served by the process that owns the downloads, the home's agent: `serve`
/// asks the running agent (started if none runs) to serve it, or hosts the agent itself.
public enum WebServer {
    /// Serves the page `page` describes over `home`'s downloads.
    ///
    /// - Parameters:
    ///   - tagging: Whether finished downloads get their tags and cover.
    ///   - bandwidthLimit: The cap on all downloads together, bytes a second (`nil`: none).
    ///   - catalogConfiguration: The catalog searched; previews and covers are fetched trusting
    ///     what it trusts, through its proxies.
    ///   - agent: Given, the page is served by the home's agent (started if none runs), which
    ///     owns the downloads: they go on when `serve` stops. `nil`, or an agent that cannot
    ///     start (said in one line), and this process hosts the agent (``host(home:page:tagging:bandwidthLimit:catalogConfiguration:say:)``).
    ///   - say: Where lines for the user go (the URL to open, warnings).
    public static func run(
        home: HalfTunesHome, page: PageRequest, tagging: TaggingOptions = TaggingOptions(), bandwidthLimit: Int? = nil,
        catalogConfiguration: CatalogConfiguration, agent: AgentLink?, say: @escaping @Sendable (String) -> Void
    ) async throws {
        if let problem = DownloadError.homeProblem(home) { throw problem }
        if let warning = exposureWarning(for: page.host) { say(warning) }
        if let agent {
            let address = AgentAddress.resolve(for: home)
            // No agent can keep a home it cannot write: refused as hosting it here would be.
            if case .running = address.probe() {} else if home.isReadOnly { throw DownloadError.readOnlyHome(home) }
            var started: Bool?
            do {
                started = try await AgentLauncher.ensureRunning(home: home, address: address, arguments: agent.arguments).started
            } catch {
                say("warning: \(DownloadError(error)); the downloads run in this process (they stop when it does)")
            }
            if let started {
                if !started { agent.notes.forEach(say) }
                let link = PageLink(home: home, address: address, arguments: agent.arguments, request: page, say: say)
                try await link.runUntilSignalled(logger: Logger(label: "halftunes.serve"))
                say("HalfTunes stopped; the agent goes on with the downloads (halftunes agent --status).")
                return
            }
        }
        try await host(
            home: home, page: page, tagging: tagging, bandwidthLimit: bandwidthLimit, catalogConfiguration: catalogConfiguration,
            say: say)
    }

    /// Hosts the home's agent in this process, serving the page too, until SIGINT or SIGTERM:
    /// what `demo` is, and `serve` with `HALFTUNES_AGENT=0`. Other commands reach it on the
    /// agent's socket as they would any agent.
    public static func host(
        home: HalfTunesHome, page: PageRequest, tagging: TaggingOptions = TaggingOptions(), bandwidthLimit: Int? = nil,
        catalogConfiguration: CatalogConfiguration, say: @escaping @Sendable (String) -> Void
    ) async throws {
        try await AgentServer.run(
            home: home, address: AgentAddress.resolve(for: home), idleExit: nil, tagging: tagging,
            bandwidthLimit: bandwidthLimit, catalogConfiguration: catalogConfiguration, page: page, say: say)
        say("HalfTunes stopped; unfinished downloads resume next time.")
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
}
