import Foundation
import TestSupport
import Testing

/// The harness every command test runs through: a child started while the test process holds
/// thousands of descriptors (as the suite does, its servers and clients running side by side)
/// gets only its three standard streams, and its output and status come back whole.
@Suite("the child-process harness", .timeLimit(.minutes(1)))
struct ChildProcessTests {
    @Test("with 2,000 more descriptors open here, a child sees only 0, 1 and 2, and its output and status arrive")
    func manyDescriptors() async throws {
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        #expect(null >= 0)
        defer { close(null) }
        var extra: [Int32] = []
        defer { extra.forEach { close($0) } }
        // Without close-on-exec: only the harness keeps these from the child.
        for _ in 0..<2_000 {
            let fd = dup(null)
            if fd < 0 { break }
            extra.append(fd)
        }
        #expect(extra.count == 2_000, "the descriptor limit here allowed \(extra.count)")
        for _ in 0..<3 {
            let result = try await ChildProcess.run(
                URL(fileURLWithPath: "/bin/sh"),
                [
                    "-c",
                    // The glob's own directory descriptor is closed once it has expanded.
                    "set -- /proc/$$/fd/*; for f; do [ -e \"$f\" ] && echo \"${f##*/}\"; done; echo oops >&2; exit 7",
                ])
            let open = result.stdout.split(separator: "\n").map(String.init)
            let onlyStandard = open == ["0", "1", "2"]
            #expect(onlyStandard, "\(open.count) descriptors open in the child: \(open.prefix(8))…")
            #expect(result.stderr == "oops\n")
            #expect(result.status == 7 && !result.signaled)
        }
    }

    @Test("a child ended by a signal is reported as signaled, with the signal's number")
    func signaled() async throws {
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "kill -TERM $$"])
        #expect(result.signaled && result.status == SIGTERM)
    }
}
