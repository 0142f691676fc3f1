import DemoCatalog
import Foundation
import TestSupport
import Testing

/// The commands that download in the foreground run as batch work; the web server does not.
/// Read from outside, per thread, by util-linux's `chrt`.
@Suite(
    "halftunes download: batch scheduling", .timeLimit(.minutes(2)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chrt"), "needs util-linux's chrt"))
struct BatchSchedulingTests {
    @Test("every thread of a running download or resume is SCHED_BATCH, those it starts later too; serve's are not")
    func downloadRunsAsBatchWork() async throws {
        try await withDemoCatalog { catalog, url in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 100_000), for: 1006)
            try await withTemporaryDirectory { home in
                let environment = halftunesEnvironment(home: home, catalog: url)
                let download = try ChildProcess(
                    try BuiltProducts.halftunes, ["download", "1006", "--json"], environment: environment)
                _ = await download.waitForLine { $0.contains("\"progress\"") ? true : nil }
                // By the first progress the HTTP client's event loops and the file-work threads
                // exist, most of them started after the command marked its threads.
                let policies = try await threadPolicies(of: download.pid)
                download.signal(SIGINT)
                #expect(await download.wait().status == 130)
                #expect(policies.count >= 4, "\(policies)")
                #expect(policies.values.allSatisfy { $0 == "SCHED_BATCH" }, "\(policies)")
                #expect(policies.keys.contains { $0.hasPrefix("NIO-") }, "\(policies)")

                // `resume` downloads in the foreground too.
                let resume = try ChildProcess(
                    try BuiltProducts.halftunes, ["resume", "1006", "--json"], environment: environment)
                _ = await resume.waitForLine { $0.contains("\"progress\"") ? true : nil }
                let resuming = try await threadPolicies(of: resume.pid)
                resume.signal(SIGINT)
                #expect(await resume.wait().status == 130)
                #expect(resuming.count >= 4, "\(resuming)")
                #expect(resuming.values.allSatisfy { $0 == "SCHED_BATCH" }, "\(resuming)")

                let server = try ChildProcess(
                    try BuiltProducts.halftunes, ["serve", "--port", "0"], environment: environment)
                _ = await server.waitForLine { $0.contains("http://127.0.0.1:") ? true : nil }
                let serving = try await threadPolicies(of: server.pid)
                server.signal(SIGTERM)
                _ = await server.wait()
                #expect(!serving.isEmpty)
                #expect(serving.values.allSatisfy { $0 == "SCHED_OTHER" }, "\(serving)")
            }
        }
    }

    /// Each thread's name (and id) and its scheduling policy, as `chrt -p` prints it.
    private func threadPolicies(of pid: Int32) async throws -> [String: String] {
        var policies: [String: String] = [:]
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        for thread in tasks {
            let comm = (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/comm", encoding: .utf8)) ?? "?"
            let name = comm.trimmingCharacters(in: .whitespacesAndNewlines)
            let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/chrt"), ["-p", thread])
            guard result.status == 0 else { continue }  // the thread ended meanwhile
            // "pid 123's current scheduling policy: SCHED_BATCH"
            let policy = result.stdout.split(separator: "\n").first { $0.contains("policy") }?.split(separator: " ").last
            policies["\(name) \(thread)"] = policy.map(String.init) ?? result.stdout
        }
        return policies
    }
}
