import Foundation
import HalfTunesAgent
import HalfTunesClient
import HalfTunesKit
import HalfTunesWeb
import ITunesSearch
import Logging

/// `serve`'s work: the home's agent (started if none runs) serves the page while this process
/// holds it open (``PageLink``); with no agent to be had, this process hosts it (`AgentServer.host`).
enum ServeThroughAgent {
    /// Serves the page `page` describes over `home`'s downloads.
    ///
    /// - Parameters:
    ///   - tagging: Whether finished downloads get their tags and cover.
    ///   - bandwidthLimit: The cap on all downloads together, bytes a second (`nil`: none).
    ///   - catalogConfiguration: The catalog searched; previews and covers are fetched trusting
    ///     what it trusts, through its proxies.
    ///   - agent: Given, the page is served by the home's agent (started if none runs), which
    ///     owns the downloads: they go on when `serve` stops. `nil`, or an agent that cannot
    ///     start (said in one line), and this process hosts the agent (`AgentServer.host`).
    ///   - say: Where lines for the user go (the URL to open, warnings).
    static func run(
        home: HalfTunesHome, page: PageRequest, tagging: TaggingOptions = TaggingOptions(), bandwidthLimit: Int? = nil,
        catalogConfiguration: CatalogConfiguration, agent: AgentLink?, say: @escaping @Sendable (String) -> Void
    ) async throws {
        if let problem = DownloadError.homeProblem(home) { throw problem }
        if let warning = WebServer.exposureWarning(for: page.host) { say(warning) }
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
        try await AgentServer.host(
            home: home, page: page, tagging: tagging, bandwidthLimit: bandwidthLimit, catalogConfiguration: catalogConfiguration,
            say: say)
    }

}
