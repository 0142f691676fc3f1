import Foundation
import HalfTunesKit
import NetworkBasics
import SystemBasics

#if canImport(Glibc)
    import Glibc
#endif

extension AgentLauncher {
    /// The user unit that runs the default home's agent (`scripts/install` puts it there).
    static let unitName = "halftunes-agent.service"
    /// Its socket unit: systemd listens on the agent's socket and starts the agent on the first
    /// connection, handing it the socket.
    static let socketUnitName = "halftunes-agent.socket"

    /// Asks systemd to start the agent, where that starts the same agent this command would: the
    /// unit is installed, the home is the default one, and the command neither passes options nor
    /// sets `HALFTUNES_…` variables the unit's process would not see. Then the agent runs in its
    /// own unit (its log in the journal); `true` when `systemctl --user start` took the request.
    /// Where the socket unit is installed that is what is started: the agent then starts on the
    /// first connection to it.
    static func startThroughSystemd(
        address: AgentAddress, arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) async -> Bool {
        let unaffected: Set<String> = ["HALFTUNES_AGENT", "HALFTUNES_LOG"]
        guard arguments.isEmpty, address.socket.lastPathComponent == "agent.sock",
            !environment.keys.contains(where: { $0.hasPrefix("HALFTUNES_") && !unaffected.contains($0) }),
            let unit = [socketUnitName, unitName].first(where: {
                FileManager.default.fileExists(atPath: unitFolder(environment).appendingPathComponent($0).path)
            }),
            let systemctl = executable("systemctl", environment: environment)
        else { return false }
        return await run(systemctl.path, ["--user", "start", "--no-block", unit]) == 0
    }

    /// Runs `executable` with `arguments`, nothing of this process's open but /dev/null as its
    /// standard streams, for at most `timeout`: its exit status, `nil` when it could not run or
    /// took longer (then killed).
    static func run(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(5)) async -> Int32? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        DetachedProcess.closeOthers(in: &actions)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return nil }
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while ContinuousClock.now < deadline {
            if waitpid(pid, &status, WNOHANG) == pid {
                // Exited normally: its status; killed by a signal: not a success.
                return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        return nil
    }

    /// `$XDG_CONFIG_HOME/systemd/user`, else `~/.config/systemd/user`.
    static func unitFolder(_ environment: [String: String]) -> URL {
        let configuration =
            environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return URL(fileURLWithPath: configuration).appendingPathComponent("systemd/user", isDirectory: true)
    }

    /// The program `name` on `PATH`.
    static func executable(_ name: String, environment: [String: String]) -> URL? {
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.lazy.map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
