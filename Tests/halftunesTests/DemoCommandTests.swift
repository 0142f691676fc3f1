import Foundation
import TestSupport
import Testing

/// `halftunes demo` as a process, with a command beside it acting through it.
@Suite("halftunes demo", .timeLimit(.minutes(1)))
struct DemoCommandTests {
    /// Downloads track 1002 (a 1.3 MB preview) through a demo started with `options`; returns the
    /// preview's size, the seconds the download took, and the seconds curl took to receive the preview's
    /// body from the demo (from its first byte to its last: no process start, no lookup in it).
    private func download(demo options: [String]) async throws -> (bytes: Int, seconds: Double, body: Double) {
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
            let listing = try await ChildProcess.run(
                try BuiltProducts.halftunes, ["list", "--json"], environment: environment)
            let document = try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any]
            let item = try #require((document?["library"] as? [[String: Any]])?.first, "\(listing.stdout)")
            #expect(FileManager.default.fileExists(atPath: try #require(item["file"] as? String)))
            let preview = try #require(item["previewURL"] as? String)
            let curl = try await ChildProcess.run(
                URL(filePath: "/usr/bin/curl"),
                ["-fsS", "-o", "/dev/null", "-w", "%{time_starttransfer} %{time_total} %{size_download}", preview])
            let fields = curl.stdout.split(separator: " ").compactMap { Double($0) }
            try #require(fields.count == 3 && fields[2] > 1_000_000, "curl: \(curl.stdout) \(curl.stderr)")
            return (Int(fields[2]), seconds, fields[1] - fields[0])
        }
    }

    @Test("previews are paced like a real link by default (300 KB/s, seconds each: time to press Pause)")
    func pacedByDefault() async throws {
        let (bytes, seconds, body) = try await download(demo: [])
        // Lower bounds: a paced server cannot be faster than its pace, however busy the machine.
        #expect(seconds >= 0.8 * Double(bytes) / 300_000, "\(bytes) bytes in \(seconds) s")
        #expect(body >= 0.8 * Double(bytes) / 300_000, "curl received \(bytes) bytes in \(body) s")
    }

    @Test("--throttle 0 serves them as fast as they go")
    func fullSpeed() async throws {
        let (bytes, _, body) = try await download(demo: ["--throttle", "0"])
        // The body alone, read by curl on loopback: far below the pace however busy the machine
        // (a whole download's time would count two process starts and a lookup).
        #expect(body < 0.25 * Double(bytes) / 300_000, "curl received \(bytes) bytes in \(body) s")
    }
}
