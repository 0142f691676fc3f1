import AsyncHTTPClient
import BenchSupport
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// `http-floor URL-LIST OUTPUT-DIR [--concurrency N]`: the least a download of each URL costs
/// through AsyncHTTPClient, the HTTP client HalfTunes is built on: N requests at once over the
/// pool's kept-alive connections, each body written on the event loop into `NAME.part` and
/// renamed into place, and nothing else (no journal, no events, no library, no flush). Prints
/// one JSON line like transfer-bench's. What `halftunes download` adds per file is its time
/// minus this one.
@main
struct HTTPFloor {
    /// Writes one body where it arrives, as the engine's BodyWriter does.
    final class FileWriter: HTTPClientResponseDelegate, @unchecked Sendable {
        typealias Response = Int64
        let path: String
        var descriptor: Int32 = -1
        var received: Int64 = 0

        init(path: String) { self.path = path }

        func didReceiveHead(task: HTTPClient.Task<Int64>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
            descriptor = open(path + ".part", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didReceiveBodyPart(task: HTTPClient.Task<Int64>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
            buffer.withUnsafeReadableBytes { bytes in _ = write(descriptor, bytes.baseAddress, bytes.count) }
            received += Int64(buffer.readableBytes)
            return task.eventLoop.makeSucceededVoidFuture()
        }

        func didFinishRequest(task: HTTPClient.Task<Int64>) throws -> Int64 {
            close(descriptor)
            rename(path + ".part", path)
            return received
        }
    }

    static func main() async throws {
        let arguments = try BenchArguments(usage: "http-floor URL-LIST OUTPUT-DIR [--concurrency N]")
        let (urls, output, concurrency) = (arguments.urls, arguments.output, arguments.concurrency)
        var configuration = HTTPClient.Configuration(decompression: .disabled)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
        configuration.tracing.tracer = nil
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let started = ContinuousClock.now
        let next = NextIndex()
        let (bytes, failed) = await withTaskGroup(of: (Int64, Int).self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var (bytes, failed): (Int64, Int) = (0, 0)
                    while let index = next.take(below: urls.count) {
                        let url = urls[index]
                        let writer = FileWriter(path: output.appendingPathComponent("\(index)-\(url.lastPathComponent)").path)
                        do {
                            let request = try HTTPClient.Request(url: url.absoluteString)
                            bytes += try await client.execute(request: request, delegate: writer).futureResult.get()
                        } catch {
                            failed += 1
                            FileHandle.standardError.write(Data("failed: \(url): \(error)\n".utf8))
                        }
                    }
                    return (bytes, failed)
                }
            }
            var total: (Int64, Int) = (0, 0)
            for await (bytes, failed) in group { total = (total.0 + bytes, total.1 + failed) }
            return total
        }
        let elapsed = ContinuousClock.now - started
        try await client.shutdown()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(#"{"bytes":\#(bytes),"seconds":\#(seconds),"failed":\#(failed),"peakRSSKiB":\#(peakRSS()),"pausedWithBytes":-1}"#)
    }
}

/// Hands out indexes 0, 1, 2… to the workers.
final class NextIndex: Sendable {
    private let value = Mutex(0)
    func take(below count: Int) -> Int? {
        value.withLock { next in
            guard next < count else { return nil }
            defer { next += 1 }
            return next
        }
    }
}
