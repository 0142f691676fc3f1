import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The agents `halftunes` children start for the tests' homes: their sockets go to one runtime
/// folder of this test process (swept with its other leftovers), and a temporary folder's agents
/// are stopped before the folder is removed, so none outlives its test.
public enum TestAgents {
    private static let folder = Mutex<URL?>(nil)

    /// `$TMPDIR/halftunes-test-<pid>-run`, mode 0700, made on first use: the children's `XDG_RUNTIME_DIR`.
    public static func runtimeFolder() throws -> URL {
        try folder.withLock { made in
            if let made { return made }
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("halftunes-test-\(getpid())-run")
            if mkdir(url.path, 0o700) != 0 && errno != EEXIST {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
            made = url
            return url
        }
    }

    /// Stops every `halftunes agent` of this user whose `--home` is `folder` or inside it, and
    /// waits until each has gone: `signal` first (SIGTERM: it stops cleanly; SIGKILL: a crash),
    /// SIGKILL after 30 s. Returns how many there were, and how many needed that SIGKILL.
    ///
    /// It waits with `Task.sleep`, holding none of the few threads the suite's tests share (a
    /// wait that held them stalled every other test of the process, and the servers in it).
    @discardableResult
    public static func stop(homesIn folder: URL, signal: Int32 = SIGTERM) async -> (stopped: Int, killed: Int) {
        let agents = running(homesIn: folder)
        guard !agents.isEmpty else { return (0, 0) }
        for pid in agents { kill(pid, signal) }
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, agents.contains(where: isRunning) {
            // Not cut short by the test's cancellation: the agents are waited for all the same.
            try? await Task.sleep(for: .milliseconds(20))
        }
        let stuck = agents.filter(isRunning)
        for pid in stuck { kill(pid, SIGKILL) }
        return (agents.count, signal == SIGKILL ? 0 : stuck.count)
    }

    /// The processes of this user's agents whose `--home` is `folder` or inside it.
    public static func running(homesIn folder: URL) -> [pid_t] {
        let path = folder.standardizedFileURL.path
        return running().filter { $0.home == path || $0.home.hasPrefix(path + "/") }.map(\.pid)
    }

    /// Whether `pid` runs (a zombie whose parent has not reaped it yet has ended).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return !stat[close...].hasPrefix(") Z")
    }

    /// This user's `halftunes agent --home DIR` processes.
    static func running() -> [(pid: pid_t, home: String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name in
            guard let pid = pid_t(name), pid != getpid(),
                let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline")
            else { return nil }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard arguments.count > 3, arguments[0].hasSuffix("halftunes"), arguments[1] == "agent",
                let flag = arguments.firstIndex(of: "--home"), flag + 1 < arguments.count
            else { return nil }
            return (pid, URL(fileURLWithPath: arguments[flag + 1]).standardizedFileURL.path)
        }
    }
}
