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
        var arguments = Array(CommandLine.arguments.dropFirst())
        var concurrency = 4
        if let index = arguments.firstIndex(of: "--concurrency"), index + 1 < arguments.count {
            concurrency = Int(arguments[index + 1]) ?? 4
            arguments.removeSubrange(index...(index + 1))
        }
        guard arguments.count == 2 else {
            FileHandle.standardError.write(Data("usage: urlsession-bench URL-LIST OUTPUT-DIR [--concurrency N]\n".utf8))
            exit(2)
        }
        let urls = try String(contentsOfFile: arguments[0], encoding: .utf8)
            .split(separator: "\n").compactMap { URL(string: String($0)) }
        let output = URL(fileURLWithPath: arguments[1])
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

    static func peakRSS() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return -1 }
        return Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "") ?? -1
    }
}
