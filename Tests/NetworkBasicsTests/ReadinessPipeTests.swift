import Foundation
import SystemBasics
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A started helper says it is ready on the pipe it was given as descriptor 3, and nothing else
/// of the starter goes with it.
@Suite("Readiness pipe", .timeLimit(.minutes(1)))
struct ReadinessPipeTests {
    /// Starts `/bin/sh -c script` with a readiness pipe; its output goes to `log`. The reading end.
    private func start(_ script: String, log: URL) throws -> (reading: Int32, child: pid_t) {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        defer { close(ends[1]) }
        let child = try DetachedProcess.spawn("/bin/sh", ["-c", script], log: log.path, passing: ends[1])
        return (ends[0], child)
    }

    private func reap(_ child: pid_t) -> Int32 {
        var status: Int32 = 0
        _ = waitpid(child, &status, 0)
        return status
    }

    @Test("the byte the helper writes to descriptor 3 is seen; it gets 0, 1, 2 and 3 and no other descriptor")
    func ready() async throws {
        try await withTemporaryDirectory { folder in
            // A descriptor of the starter's own, open while the helper starts: it must stay behind.
            let kept = open("/dev/null", O_RDONLY)  // not close-on-exec
            defer { close(kept) }
            let log = folder.appendingPathComponent("log")
            let (reading, child) = try start("ls /proc/self/fd; printf x >&3", log: log)
            #expect(await ReadinessPipe.wait(reading, timeout: .seconds(10)))
            #expect(reap(child) == 0)
            // `ls` lists its own descriptor of /proc/self/fd as well.
            let listed = Set(try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init))
            #expect(listed.isSuperset(of: ["0", "1", "2", "3"]))
            #expect(listed.count == 5, "descriptors the helper had, beside \(kept) of the starter's: \(listed.sorted())")
        }
    }

    @Test("a helper that ends without writing is not ready: the wait ends as it does, not at the time-out")
    func endedFirst() async throws {
        try await withTemporaryDirectory { folder in
            let (reading, child) = try start("exit 3", log: folder.appendingPathComponent("log"))
            let started = ContinuousClock.now
            #expect(await ReadinessPipe.wait(reading, timeout: .seconds(30)) == false)
            #expect(ContinuousClock.now - started < .seconds(20), "ended by the pipe's closing")
            #expect((reap(child) >> 8) & 0xff == 3)
        }
    }

    @Test("a helper that neither writes nor ends: the wait ends at its time-out")
    func timesOut() async throws {
        try await withTemporaryDirectory { folder in
            let (reading, child) = try start("sleep 30", log: folder.appendingPathComponent("log"))
            defer {
                kill(child, SIGKILL)
                _ = reap(child)
            }
            #expect(await ReadinessPipe.wait(reading, timeout: .milliseconds(200)) == false)
        }
    }
}
