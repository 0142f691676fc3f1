import Foundation
import HalfTunesKit
import ITunesSearch
import Logging
import NetworkBasics
import TransferEngine

extension AgentServer {
    /// Hosts the home's agent in this process, serving the page too, until SIGINT or SIGTERM:
    /// what `demo` is, and `serve` with `HALFTUNES_AGENT=0`. Other commands reach it on the
    /// agent's socket as they would any agent.
    public static func host(
        home: HalfTunesHome, page: PageRequest, tagging: TaggingOptions = TaggingOptions(), bandwidthLimit: Int? = nil,
        catalogConfiguration: CatalogConfiguration, say: @escaping @Sendable (String) -> Void
    ) async throws {
        try await run(
            home: home, address: AgentAddress.resolve(for: home), idleExit: nil, tagging: tagging,
            bandwidthLimit: bandwidthLimit, catalogConfiguration: catalogConfiguration, page: page, say: say)
        say("HalfTunes stopped; unfinished downloads resume next time.")
    }

    /// The configuration of the downloads of a process that serves them (`serve`, the agent):
    /// previews and covers fetched trusting `trustRoots`, through `proxies`, under
    /// `bandwidthLimit`, their files surviving what `durability` says.
    static func sessionConfiguration(
        trustRoots: TrustRoots, proxies: ProxySettings, durability: Durability = .powerLoss, bandwidthLimit: Int?
    ) -> TransferSessionConfiguration {
        var configuration = TransferSessionConfiguration()
        configuration.durability = durability
        configuration.trustRoots = trustRoots
        configuration.proxies = proxies
        configuration.bandwidthLimit = bandwidthLimit
        return configuration
    }
}
