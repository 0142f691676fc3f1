import DemoCatalog
import Foundation
import Hummingbird
import Synchronization

/// A one-file server whose answers follow a script, one per request, in order; once the script is
/// used up it serves the file properly (200, or 206 for a `Range`). For the engine's edge cases
/// that the DemoCatalog's faults cannot make: bodies without a length, 206s that end short,
/// `Retry-After` as an HTTP date.
public final class ScriptedServer: Sendable {
    /// One scripted answer.
    public enum Answer: Sendable {
        /// 200 without Content-Length (chunked), the connection cut after `after` bytes (no last chunk).
        case cutChunked(after: Int)
        /// For a ranged request: 206 with `Content-Range: bytes N-(T-1)/T` but no Content-Length,
        /// ending cleanly after `bytes` bytes — short of the total it announced.
        case shortRange(bytes: Int)
        /// For a ranged request: 206 with `Content-Range: bytes N-(T-1)/T` but no Content-Length,
        /// sending `extra` bytes more than it announced.
        case longRange(extra: Int)
        /// 503 with this `Retry-After` value.
        case unavailable(retryAfter: String)
    }

    /// The file.
    public let data: Data
    /// Its (strong) ETag.
    public let etag = "\"scripted-v1\""
    private let script: Mutex<[Answer]>
    /// What each request asked (`Range`) and got (status).
    public let log = RequestLog<(range: String?, status: Int)>()

    /// A server for `size` bytes of seeded data, answering as `script` says first.
    public init(size: Int, script: [Answer]) {
        var random = SplitMixBytes(seed: UInt64(size))
        data = Data((0..<size).map { _ in random.next() })
        self.script = Mutex(script)
    }

    /// Its routes: `GET /file.bin`.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/file.bin") { request, _ in self.answer(request) }
        return router
    }

    private func answer(_ request: Request) -> Response {
        let range = request.headers[.range]
        let offset = range.flatMap { Int($0.dropFirst("bytes=".count).dropLast()) } ?? 0
        let next = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        let data = data
        let total = data.count
        switch next {
        case .cutChunked(let after):
            log.append((range, 200))
            return Response(
                status: .ok, headers: [.eTag: etag],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(bytes: data.prefix(after)))
                    throw CancellationError()
                })
        case .shortRange(let bytes):
            log.append((range, 206))
            return Response(
                status: .partialContent, headers: [.eTag: etag, .contentRange: "bytes \(offset)-\(total - 1)/\(total)"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(bytes: data[offset..<min(total, offset + bytes)]))
                    try await writer.finish(nil)
                })
        case .longRange(let extra):
            log.append((range, 206))
            return Response(
                status: .partialContent, headers: [.eTag: etag, .contentRange: "bytes \(offset)-\(total - 1)/\(total)"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(bytes: data[offset...] + Data(count: extra)))
                    try await writer.finish(nil)
                })
        case .unavailable(let retryAfter):
            log.append((range, 503))
            return Response(status: .serviceUnavailable, headers: [.retryAfter: retryAfter, .contentLength: "0"])
        case nil:
            let status: HTTPResponse.Status = offset > 0 ? .partialContent : .ok
            log.append((range, Int(status.code)))
            var headers: HTTPFields = [.eTag: etag, .contentLength: String(total - offset)]
            if offset > 0 { headers[.contentRange] = "bytes \(offset)-\(total - 1)/\(total)" }
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data[offset...])))
        }
    }
}

/// Bytes from the seeded generator.
private struct SplitMixBytes {
    private var random: SplitMix
    init(seed: UInt64) { random = SplitMix(seed: seed) }
    mutating func next() -> UInt8 { UInt8(truncatingIfNeeded: random.next()) }
}
