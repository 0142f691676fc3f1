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
                // By the first progress the HTTP client's event loops and the file-work threads
                // exist, most of them started after the command marked its threads.
                for command in ["download", "resume"] {
                    let policies = try await policiesWhileDownloading([command, "1006", "--json"], environment)
                    #expect(policies.count >= 4, "\(command): \(policies)")
                    #expect(policies.values.allSatisfy { $0 == "SCHED_BATCH" }, "\(command): \(policies)")
                    #expect(policies.keys.contains { $0.hasPrefix("NIO-") }, "\(command): \(policies)")
                }

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

    /// The thread policies of `halftunes ARGUMENTS` once it reports progress; then Ctrl-C (exit 130).
    private func policiesWhileDownloading(
        _ arguments: [String], _ environment: [String: String]
    ) async throws -> [String: String] {
        let process = try ChildProcess(try BuiltProducts.halftunes, arguments, environment: environment)
        _ = await process.waitForLine { $0.contains("\"progress\"") ? true : nil }
        let policies = try await threadPolicies(of: process.pid)
        process.signal(SIGINT)
        #expect(await process.wait().status == 130, "\(arguments)")
        return policies
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
