import BenchSupport
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `urlsession-bench URL-LIST OUTPUT-DIR [--concurrency N]`: the same job as transfer-bench, done
/// the way the tutorial does it on Linux (Foundation's URLSession `downloadTask`), for comparison.
/// Prints one JSON line: bytes, seconds, failures, peak RSS.
@main
struct URLSessionBench {
    static func main() async throws {
        let arguments = try BenchArguments(usage: "urlsession-bench URL-LIST OUTPUT-DIR [--concurrency N]")
        let (urls, output, concurrency) = (arguments.urls, arguments.output, arguments.concurrency)
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = concurrency
        let session = URLSession(configuration: configuration)
        let started = Date()
        var bytes: Int64 = 0
        var failed = 0
        try await withThrowingTaskGroup(of: Int64?.self) { group in
            var next = 0
            func add() {
                guard next < urls.count else { return }
                let index = next
                next += 1
                group.addTask {
                    do {
                        let (location, response) = try await session.download(from: urls[index])
                        guard (response as? HTTPURLResponse)?.statusCode == 200 else { return nil }
                        let destination = output.appendingPathComponent("\(index)-\(urls[index].lastPathComponent)")
                        try? FileManager.default.removeItem(at: destination)
                        try FileManager.default.moveItem(at: location, to: destination)
                        let size = try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int64
                        return size
                    } catch {
                        return nil
                    }
                }
            }
            for _ in 0..<concurrency { add() }
            while let result = try await group.next() {
                if let result { bytes += result } else { failed += 1 }
                add()
            }
        }
        let seconds = Date().timeIntervalSince(started)
        print(#"{"bytes":\#(bytes),"seconds":\#(seconds),"failed":\#(failed),"peakRSSKiB":\#(peakRSS())}"#)
    }
}
