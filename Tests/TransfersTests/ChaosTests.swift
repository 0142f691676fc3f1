import Foundation
import TestSupport
import Testing

@testable import TransferEngine

/// Many downloads through a server that drops, stalls and lies, from a fixed seed (printed, so a
/// failure can be replayed): every download ends byte-exact or failed with a reason; no file is
/// ever marked done with other bytes than a version the server served; nothing is left behind for
/// the ones that failed for good.
@Suite("Chaos", .timeLimit(.minutes(3)))
struct ChaosTests {
    static let seed: UInt64 = ProcessInfo.processInfo.environment["HALFTUNES_CHAOS_SEED"].flatMap(UInt64.init) ?? 20_261_122
    static let count: Int = ProcessInfo.processInfo.environment["HALFTUNES_CHAOS_N"].flatMap(Int.init) ?? 200

    @Test("downloads through random faults are byte-exact or fail with a reason")
    func chaos() async throws {
        let server = ChaosServer(seed: Self.seed, count: Self.count)
        print(
            "chaos: seed \(Self.seed), \(Self.count) downloads (replay: HALFTUNES_CHAOS_SEED=\(Self.seed) HALFTUNES_CHAOS_N=\(Self.count))"
        )
        try await withTestServer(server.router()) { url in
            let configuration = TransferSessionConfiguration(
                maxConcurrentTransfers: 8, maxTransfersPerHost: 8,
                retryPolicy: RetryPolicy(maxAttemptsWithoutProgress: 8, baseDelay: .milliseconds(5), maxDelay: .milliseconds(50)),
                stallTimeout: .milliseconds(250))
            try await withSession(configuration) { session, folder in
                var started: [(TransferID, String, URL)] = []
                let names = (0..<Self.count).map { "f\($0).bin" } + ["missing-1.bin", "loop-1.bin"]
                for name in names {
                    let destination = folder.appendingPathComponent("out/\(name)")
                    started.append(
                        (
                            try await session.start(url: url.appendingPathComponent("files/\(name)"), destination: destination),
                            name, destination
                        ))
                }
                // Every tenth download is cancelled a little way in: nothing of it may remain.
                let doomed = stride(from: 5, to: Self.count, by: 10).map { started[$0] }
                var cancelled: [(TransferID, URL)] = []
                for (id, name, destination) in doomed {
                    cancelled.append((id, destination))
                    try? await session.cancel(id)
                    started.removeAll { $0.1 == name }
                }
                var completed = 0
                var failed: [String: Int] = [:]
                for (id, name, destination) in started {
                    let done = try await session.wait(for: id)
                    switch done.state {
                    case .completed:
                        completed += 1
                        let data = try Data(contentsOf: destination)
                        #expect(
                            server.versions(of: name).contains(data),
                            "\(name) is not any version the server had (seed \(Self.seed))")
                    case .failed:
                        let reason = try #require(done.failure, "\(name) failed without a reason")
                        #expect(!reason.message.isEmpty)
                        failed[reason.code.rawValue, default: 0] += 1
                        #expect(
                            !FileManager.default.fileExists(atPath: destination.path), "\(name) failed but a file is in place")
                        if reason.isPermanent {
                            #expect(
                                !FileManager.default.fileExists(atPath: destination.path + ".part"),
                                "\(name): partial left after a permanent failure")
                        }
                    default:
                        Issue.record("\(name) ended \(done.state)")
                    }
                }
                for (id, destination) in cancelled {
                    let state = await session.transfer(id)?.state
                    if state == nil {
                        #expect(
                            !FileManager.default.fileExists(atPath: destination.path + ".part"),
                            "a cancelled download left its partial")
                        #expect(!FileManager.default.fileExists(atPath: destination.path), "a cancelled download left a file")
                    } else {
                        #expect(state == .completed, "cancel came after completion, or it must be gone")
                    }
                }
                let missing = try #require(started.first { $0.1 == "missing-1.bin" })
                #expect(await session.transfer(missing.0)?.failure?.message.contains("HTTP 404") == true)
                let loop = try #require(started.first { $0.1 == "loop-1.bin" })
                #expect(await session.transfer(loop.0)?.failure?.code == .tooManyRedirects)
                let faults = server.injected.filter { $0.key != .none }.map { "\($0.key.rawValue) \($0.value)" }.sorted()
                print(
                    "chaos: \(completed) byte-exact, \(cancelled.count) cancelled, failed \(failed), faults injected: \(faults.joined(separator: ", "))"
                )
                #expect(completed >= (Self.count - cancelled.count) * 9 / 10, "too few completed: \(completed) of \(Self.count)")
            }
        }
    }
}
