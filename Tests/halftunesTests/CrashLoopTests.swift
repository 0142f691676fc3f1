import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `halftunes serve` killed with SIGKILL again and again while it downloads: the journal opens
/// every time and every file ends byte-exact.
@Suite("Crash loop", .timeLimit(.minutes(3)))
struct CrashLoopTests {
    static let kills = 20

    @Test(
        "every DemoCatalog preview (39) queued, 20 SIGKILLs at random moments: in the end every file tagged, its audio byte-exact"
    )
    func crashLoop() async throws {
        try await withDemoCatalog { catalog, catalogURL in
            let ids = Array(catalog.tracks.filter(\.hasPreview).map(\.id).prefix(39))
            catalog.setFaults(PreviewFaults(bytesPerSecond: 1_500_000))
            try await withTemporaryDirectory { home in
                let environment = ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": catalogURL.absoluteString]
                var random = SystemRandomNumberGenerator()
                var first = true
                for round in 0...Self.kills {
                    let server = try ChildProcess(
                        try BuiltProducts.halftunes, ["serve", "--port", "0"], environment: environment)
                    let started = await server.waitForLine { line -> URL? in
                        guard let range = line.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression) else {
                            return nil
                        }
                        return URL(string: String(line[range]))
                    }
                    guard let url = started else {
                        let ended = await server.wait()
                        Issue.record("serve did not start in round \(round): \(ended.stderr)")
                        return
                    }
                    if first {
                        // Queue them all through the API, as the page would.
                        let token = try await pageToken(at: url)
                        for id in ids {
                            #expect(try await pageCall(.POST, "/api/downloads/\(id)", at: url, token: token) == 200)
                        }
                        first = false
                    }
                    if round == Self.kills {
                        let library = home.appendingPathComponent("library")
                        let deadline = ContinuousClock.now + .seconds(90)
                        while filesIn(library).filter({ !$0.hasSuffix(".part") }).count < ids.count,
                            ContinuousClock.now < deadline
                        {
                            try await Task.sleep(for: .milliseconds(50))
                        }
                        server.signal(SIGTERM)
                        #expect(await server.wait().status == 0)
                    } else {
                        try await Task.sleep(for: .milliseconds(Int.random(in: 50...400, using: &random)))
                        server.signal(SIGKILL)
                        let killed = await server.wait()
                        #expect(killed.signaled, "round \(round): serve was not killed")
                    }
                }
                let library = home.appendingPathComponent("library")
                let files = filesIn(library)
                #expect(files.filter { $0.hasSuffix(".part") }.isEmpty)
                var total = 0
                for id in ids {
                    let name = try #require(files.first { $0.hasSuffix("[\(id)].wav") }, "track \(id) is missing")
                    let data = try Data(contentsOf: library.appendingPathComponent(name))
                    #expect(
                        WAVAudio.audioHash(data) == WAVAudio.audioHash(await catalog.preview(for: id)!.data),
                        "track \(id) differs")
                    if FFmpeg.available {
                        // A kill between the download's end and its rename into place is finished on restart, tags and all.
                        let probe = try await FFmpeg.probe(library.appendingPathComponent(name))
                        #expect(probe.tags["title"] == catalog.track(id: id)?.name, "track \(id) is not tagged")
                    }
                    total += await catalog.preview(for: id)!.data.count
                }
                let sent = ids.reduce(0) { $0 + catalog.bytesSent(for: $1) }
                print(
                    "crash loop: \(Self.kills) kills survived; \(ids.count) files tagged, their audio byte-exact; \(sent - total) bytes fetched twice of \(total)"
                )
            }
        }
    }
}
