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

/// Keeps the agent up while `serve` runs: one event stream held open to it (a client, so it
/// never idles out), and when that stream ends — the agent killed, say — a new agent started,
/// which takes up the downloads from their journals.
struct AgentTether: Service {
    let home: HalfTunesHome
    let address: AgentAddress
    let arguments: [String]
    let say: @Sendable (String) -> Void

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let (pid, started) = try await AgentLauncher.ensureRunning(
                        home: home, address: address, arguments: arguments)
                    if started { say("started a new HalfTunes agent (process \(pid)): the last one ended") }
                    let control = RemoteDownloadControl(agent: address, pid: pid)
                    let events = try await control.events()
                    for await _ in events {}
                    await control.close()
                } catch {
                    say("warning: \(error)")
                }
                // Not a tight loop when the agent cannot start.
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }
}
