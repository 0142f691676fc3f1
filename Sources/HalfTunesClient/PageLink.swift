import Foundation
import HalfTunesKit
import Logging
import ServiceLifecycle

/// What `serve` asks of the agent it is a client of.
public struct AgentLink: Sendable {
    /// The options of an agent `serve` starts (its catalog, tagging, cap).
    public var arguments: [String]
    /// What to say when an agent already ran, so the options given do not apply.
    public var notes: [String]

    /// A link starting an agent with `arguments` when none runs.
    public init(arguments: [String], notes: [String] = []) {
        self.arguments = arguments
        self.notes = notes
    }
}

/// `serve`'s whole work: the agent serves the page (its `PageHost`) while this holds it open over
/// the agent's socket. When the agent ends (killed, say) the hold ends too: a new agent is
/// started, which takes up the downloads from their journals, and serves the page again on the
/// same port with the same token, so open tabs carry on. Stopping `serve` closes the page.
public struct PageLink: Service {
    let home: HalfTunesHome
    let address: AgentAddress
    let arguments: [String]
    let request: PageRequest
    let say: @Sendable (String) -> Void

    /// A link to `home`'s agent on `address` (started with `arguments` when none runs) for the
    /// page `request` describes; `say` gets the lines for the user.
    public init(
        home: HalfTunesHome, address: AgentAddress, arguments: [String], request: PageRequest,
        say: @escaping @Sendable (String) -> Void
    ) {
        (self.home, self.address, self.arguments, self.request, self.say) = (home, address, arguments, request, say)
    }

    /// - Throws: ``DownloadError`` when the first page cannot be opened (its port in use, say).
    public func run() async throws {
        let (url, held) = try await open(request)
        say("HalfTunes is running at \(url)/ — open it in a browser. Ctrl-C stops it.")
        // The next agent serves the same port, even one the system chose.
        var again = request
        again.port = url.port ?? request.port
        let (link, next) = (self, again)
        await cancelWhenGracefulShutdown {
            var hold: AsyncStream<Void>? = held
            while !Task.isCancelled {
                if let hold { for await _ in hold {} }
                hold = nil
                // Not a tight loop when the agent cannot start.
                do { try await Task.sleep(for: .milliseconds(500)) } catch { return }
                do { hold = try await link.open(next, restarting: true).held } catch {
                    link.say("warning: \(error)")
                }
            }
        }
    }

    /// The agent (started if need be) serving the page.
    private func open(_ request: PageRequest, restarting: Bool = false) async throws -> (url: URL, held: AsyncStream<Void>) {
        let (pid, started) = try await AgentLauncher.ensureRunning(home: home, address: address, arguments: arguments)
        if started, restarting { say("started a new HalfTunes agent (process \(pid)): the last one ended") }
        return try await RemoteDownloadControl(agent: address, pid: pid).openPage(request)
    }

    /// Runs until SIGINT or SIGTERM.
    public func runUntilSignalled(logger: Logger) async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: self, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
