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
    /// - Parameter arguments: The agent's options after `agent` (the command's catalog, say).
    /// - Throws: ``DownloadError``: the socket's folder is unusable, or the agent did not start
    ///   (with the last line it logged).
    public static func ensureRunning(
        home: HalfTunesHome, address: AgentAddress, arguments: [String], timeout: Duration = .seconds(10)
    ) async throws -> (pid: Int32, started: Bool) {
        if case .running(let pid) = address.probe() { return (pid, false) }
        try address.prepareFolder()
        let log = home.root.appendingPathComponent("agent.log")
        do { try FileManager.default.createDirectory(at: home.root, withIntermediateDirectories: true) } catch {
            throw DownloadError(.badInput, "cannot create the home \(home.root.path): \(error.localizedDescription)")
        }
        // Through systemd where its unit starts the same agent; else a process of our own.
        let systemd = await startThroughSystemd(address: address, arguments: arguments)
        let child = systemd ? 0 : try spawn(["agent", "--home", home.root.path] + arguments, log: log.path)
        let deadline = ContinuousClock.now + timeout
        var exited = systemd
        while ContinuousClock.now < deadline {
            if case .running(let pid) = address.probe() { return (pid, true) }
            var status: Int32 = 0
            // An agent that ended at once lost the race to another (which is then probed) or failed.
            if !exited, waitpid(child, &status, WNOHANG) == child {
                exited = true
                guard lastLine(of: log)?.contains("an agent already runs") == true else { break }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        if systemd {
            throw DownloadError(
                .internalError, "the HalfTunes agent did not start (journalctl --user -u \(unitName) says why)")
        }
        let said = lastLine(of: log).map { ": \($0)" } ?? ""
        throw DownloadError(.internalError, "the HalfTunes agent did not start\(said) (its log: \(log.path))")
    }

    /// Starts this executable with `arguments` in a new session.
    private static func spawn(_ arguments: [String], log: String) throws -> pid_t {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let (visible, environment) = secretsMoved(arguments)
        do { return try DetachedProcess.spawn(executable, visible, log: log, environment: environment) } catch {
            throw DownloadError(.internalError, "cannot start the HalfTunes agent: \(error.reason)")
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

    private static func lastLine(of file: URL) -> String? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").last.map(String.init)
    }
}
