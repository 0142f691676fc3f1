import DemoCatalog
import Foundation
import TestSupport
import Testing

/// The bandwidth cap from the command line: `download --limit-rate` holds the agent it starts to
/// the cap, and `halftunes limit-rate` changes the running agent's, which `serve --limit-rate` set.
@Suite("halftunes limit-rate", .timeLimit(.minutes(1)))
struct LimitRateCommandTests {
    @Test("download --limit-rate 400k, through the agent it starts: the batch takes at least 0.9 × its bytes ÷ the cap")
    func downloadHoldsTheCap() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let cap = 400 * 1024
                let began = ContinuousClock.now
                let result = try await runHalftunes(["download", "1001", "--limit-rate", "400k"], home: home, catalog: url)
                let seconds = (ContinuousClock.now - began) / .seconds(1)
                #expect(result.status == 0, "\(result.stderr)")
                let bytes = try #require(await catalog.preview(for: 1001)).data.count
                // Only the lower bound is the cap's promise; a loaded machine is slower still.
                #expect(seconds >= 0.9 * Double(bytes) / Double(cap), "\(bytes) bytes in \(seconds) s under \(cap) B/s")
                #expect(catalog.bytesSent(for: 1001) == bytes, "the file was sent once, whole")
            }
        }
    }

    @Test("serve --limit-rate 1M; limit-rate shows it, changes it, removes it; with no server, one line, exit 4")
    func changesTheServersCap() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { home in
                let alone = try await runHalftunes(["limit-rate", "2M"], home: home, catalog: url)
                #expect(alone.status == 4)
                #expect(alone.stderr.hasPrefix("halftunes: no downloads run to cap: "), "\(alone.stderr)")
                let server = try ChildProcess(
                    try BuiltProducts.halftunes, ["serve", "--port", "0", "--limit-rate", "1M"],
                    environment: halftunesEnvironment(home: home, catalog: url))
                _ = await server.waitForLine { $0.contains("http://127.0.0.1:") ? true : nil }
                var outputs: [String] = []
                for arguments in [["limit-rate"], ["limit-rate", "300k"], ["limit-rate"], ["limit-rate", "none"]] {
                    let result = try await runHalftunes(arguments, home: home, catalog: url)
                    #expect(result.status == 0, "\(arguments): \(result.stderr)")
                    outputs.append(result.stdout)
                }
                server.signal(SIGTERM)
                #expect(await server.wait().status == 0)
                #expect(
                    outputs == [
                        "Downloads capped at 1.0 MB/s in all.\n", "Downloads capped at 307.2 KB/s in all.\n",
                        "Downloads capped at 307.2 KB/s in all.\n", "No cap on downloads.\n",
                    ])
            }
        }
    }
}
