import Foundation
import TestSupport
import Testing

/// `halftunes demo` as a process, with a command beside it acting through it.
@Suite("halftunes demo", .timeLimit(.minutes(1)))
struct DemoCommandTests {
    /// Downloads track 1002 (a 1.3 MB preview) through a demo started with `options`; returns its
    /// size and the seconds the download took.
    private func download(demo options: [String]) async throws -> (bytes: Int, seconds: Double) {
        try await withTemporaryDirectory { home in
            let environment = ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": ""]
            let demo = try ChildProcess(try BuiltProducts.halftunes, ["demo", "--port", "0"] + options, environment: environment)
            defer { demo.signal(SIGTERM) }
            let ready: Bool? = await demo.waitForLine { $0.contains("http://127.0.0.1:") ? true : nil }
            try #require(ready == true, "the demo did not start")
            let started = ContinuousClock.now
            let result = try await ChildProcess.run(try BuiltProducts.halftunes, ["download", "1002"], environment: environment)
            let seconds = (ContinuousClock.now - started) / .seconds(1)
            #expect(result.status == 0, "\(result.stderr)")
            let file = try #require(
                try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent("library").path).first)
            let bytes =
                try FileManager.default.attributesOfItem(atPath: home.appendingPathComponent("library/\(file)").path)[
                    .size] as? Int
            return (try #require(bytes), seconds)
        }
    }

    @Test("previews are paced like a real link by default (300 KB/s, seconds each: time to press Pause)")
    func pacedByDefault() async throws {
        let (bytes, seconds) = try await download(demo: [])
        // A lower bound: a paced server cannot be faster than its pace, however busy the machine.
        #expect(seconds >= 0.8 * Double(bytes) / 300_000, "\(bytes) bytes in \(seconds) s")
    }

    @Test("--throttle 0 serves them as fast as they go")
    func fullSpeed() async throws {
        let (bytes, seconds) = try await download(demo: ["--throttle", "0"])
        // Far below the pace (by some 40 times here): only the pacing could make it this slow.
        #expect(seconds < 0.5 * Double(bytes) / 300_000, "\(bytes) bytes in \(seconds) s")
    }
}
