import Foundation
import HalfTunesKit
import NetworkBasics
import SystemBasics

#if canImport(Glibc)
    import Glibc
#endif

/// Starts a home's agent when none runs: through systemd where `scripts/install` put its user
/// unit, else `halftunes agent` as a ``DetachedProcess``, its output appended to `agent.log` in the home.
/// Two commands starting one at once end with one agent: the loser's agent finds the lock taken
/// and exits, and both talk to the winner.
///
/// `HALFTUNES_AGENT=0` (or `off`, `no`, `false`) turns this off: commands then download in
/// their own process, as in a container or a script that wants no process left behind.
public enum AgentLauncher {
    /// Whether commands may start an agent, as `HALFTUNES_AGENT` says (unset: yes).
    public static func isEnabled(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let value = environment["HALFTUNES_AGENT"]?.lowercased() else { return true }
        return !["0", "off", "no", "false"].contains(value)
    }

    /// The running agent's process, started now if need be, and whether it was started now.
    ///
    /// - Parameters:
    ///   - arguments: The agent's options after `agent` (the command's catalog, say).
    ///   - lookAhead: Track ids an agent started now looks up at once, while it opens the home
    ///     (the command's first downloads); not where systemd starts it.
    /// - Throws: ``DownloadError``: the socket's folder is unusable, or the agent did not start
    ///   (with the last line it logged).
    public static func ensureRunning(
        home: HalfTunesHome, address: AgentAddress, arguments: [String], lookAhead: [Int] = [],
        timeout: Duration = .seconds(10)
    ) async throws -> (pid: Int32, started: Bool) {
        if case .running(let pid) = address.probe() { return (pid, false) }
        try address.prepareFolder()
        let log = home.root.appendingPathComponent("agent.log")
        do { try FileManager.default.createDirectory(at: home.root, withIntermediateDirectories: true) } catch {
            throw DownloadError(.badInput, "cannot create the home \(home.root.path): \(error.localizedDescription)")
        }
        // Through systemd where its unit starts the same agent; else a process of our own.
        let outcome: AgentStart.Outcome
        let lostRace: @Sendable (String) -> Bool = { $0.contains("an agent already runs") }
        if await startThroughSystemd(address: address, arguments: arguments) {
            outcome = await AgentStart.waitFor(address.place, child: 0, log: log, timeout: timeout, lostRace: lostRace)
            if case .failed = outcome {
                throw DownloadError(
                    .internalError, "the HalfTunes agent did not start (journalctl --user -u \(unitName) says why)")
            }
        } else {
            let executable =
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            let ahead = lookAhead.isEmpty ? [] : ["--look-ahead", lookAhead.map(String.init).joined(separator: ",")]
            let (visible, environment) = secretsMoved(["agent", "--home", home.root.path] + arguments + ahead)
            do {
                outcome = try await AgentStart.launch(
                    executable, visible, socket: address.place, log: log, environment: environment, timeout: timeout,
                    readiness: "--ready-fd", lostRace: lostRace)
            } catch {
                throw DownloadError(.internalError, "cannot start the HalfTunes agent: \(error.reason)")
            }
        }
        switch outcome {
        case .running(let pid): return (pid, true)
        case .failed(let line):
            let said = line.map { ": \($0)" } ?? ""
            throw DownloadError(.internalError, "the HalfTunes agent did not start\(said) (its log: \(log.path))")
        }
    }

    /// The arguments with `--proxy VALUE` taken out, and the environment that carries it instead
    /// (`HALFTUNES_PROXY`): a proxy's password on a command line is shown to every user by `ps`,
    /// while a process's environment is readable only by its user. `nil`: the environment as is.
    static func secretsMoved(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> ([String], [String: String]?) {
        guard let index = arguments.firstIndex(of: "--proxy"), index + 1 < arguments.count else { return (arguments, nil) }
        var visible = arguments
        var moved = environment
        moved["HALFTUNES_PROXY"] = visible[index + 1]
        visible.removeSubrange(index...index + 1)
        return (visible, moved)
    }
}
