import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts a per-user agent as a process of its own (``DetachedProcess``, its output appended to
/// `log`) and waits until its socket answers. Two clients starting one at once end with one
/// agent: the loser's agent finds the lock taken and exits saying so, and both talk to the winner.
public enum AgentStart {
    /// How a start ended.
    public enum Outcome: Sendable, Equatable {
        /// The agent answers on its socket: its process.
        case running(pid: Int32)
        /// It did not answer in time, or ended without answering (its log's last line, if any).
        case failed(lastLine: String?)
    }

    /// Starts `executable arguments` and waits up to `timeout` for `socket` to answer.
    ///
    /// - Parameters:
    ///   - readiness: The agent's option that names a descriptor it writes a byte to once it
    ///     listens (`--ready-fd`): given, the agent gets it with descriptor 3, a pipe, and the
    ///     wait ends as the byte comes; else the socket is probed every 20 ms.
    ///   - lostRace: Whether the last line a started agent logged as it ended says another
    ///     agent holds the lock (the winner is then waited for a little longer).
    /// - Throws: ``DetachedProcessError`` when the process cannot be started at all.
    public static func launch(
        _ executable: String, _ arguments: [String], socket: AgentSocket, log: URL, environment: [String: String]? = nil,
        timeout: Duration = .seconds(10), readiness: String? = nil, lostRace: @Sendable (String) -> Bool
    ) async throws(DetachedProcessError) -> Outcome {
        try? FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
        var pipe: [Int32] = [-1, -1]
        guard let readiness, Glibc.pipe(&pipe) == 0 else {
            let child = try DetachedProcess.spawn(executable, arguments, log: log.path, environment: environment)
            return await waitFor(socket, child: child, log: log, timeout: timeout, lostRace: lostRace)
        }
        // Neither end goes to other processes this one starts (the agent gets its own as 3).
        for end in pipe { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let child: pid_t
        do {
            child = try DetachedProcess.spawn(
                executable, arguments + [readiness, "3"], log: log.path, environment: environment, passing: pipe[1])
        } catch {
            close(pipe[0])
            close(pipe[1])
            throw error
        }
        close(pipe[1])
        let start = ContinuousClock.now
        if await ReadinessPipe.wait(pipe[0], timeout: timeout), case .running(let pid) = socket.probe() {
            reapLater(child)
            return .running(pid: pid)
        }
        // It ended without saying so (another agent won the race, or it failed): as without a pipe.
        let left = max(timeout - (ContinuousClock.now - start), .milliseconds(100))
        return await waitFor(socket, child: child, log: log, timeout: left, lostRace: lostRace)
    }

    /// Waits up to `timeout` for `socket` to answer, noting when `child` (0: none of ours) ends.
    public static func waitFor(
        _ socket: AgentSocket, child: pid_t, log: URL, timeout: Duration, lostRace: @Sendable (String) -> Bool
    ) async -> Outcome {
        var deadline = ContinuousClock.now + timeout
        var exited = child == 0
        // A started agent that outlives the wait is reaped when it ends (no zombie left behind).
        defer { if !exited { reapLater(child) } }
        while ContinuousClock.now < deadline {
            if case .running(let pid) = socket.probe() { return .running(pid: pid) }
            var status: Int32 = 0
            // An agent that ended at once lost the race to another (which is then probed) or failed.
            if !exited, waitpid(child, &status, WNOHANG) == child {
                exited = true
                guard let line = lastLine(of: log), lostRace(line) else { return .failed(lastLine: lastLine(of: log)) }
                deadline = min(deadline, .now + .seconds(2))
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return .failed(lastLine: lastLine(of: log))
    }

    /// The last line of a log file.
    public static func lastLine(of file: URL) -> String? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").last.map(String.init)
    }

    /// Reaps a started agent when it ends, on a thread of its own.
    private static func reapLater(_ child: pid_t) {
        Thread.detachNewThread {
            var status: Int32 = 0
            _ = waitpid(child, &status, 0)
        }
    }
}
