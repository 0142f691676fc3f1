import DemoCatalog
import Foundation
import Hummingbird
import Synchronization

/// A file server that misbehaves on purpose, replayably: which fault a request meets depends only on
/// the seed, the file and how many requests that file has had — not on how requests interleave.
///
/// Faults: drop after N bytes, stall then drop, 503/429 with Retry-After, 500, ignore Range (200),
/// a Content-Range that does not match the request, 206 without Content-Range, content changed (new
/// ETag) before answering, and a redirect. Files named `missing-*` are 404 and `loop-*` redirect to
/// themselves, for the permanent failures.
public final class ChaosServer: Sendable {
    /// The kinds of fault, for the report.
    public enum Fault: String, CaseIterable, Sendable {
        case none, drop, stall, unavailable, tooMany, serverError, ignoreRange, wrongContentRange
        case missingContentRange, changeContent, redirect
    }

    private struct File {
        var versions: [Data]
        var requests = 0
    }

    public let seed: UInt64
    private let files: Mutex<[String: File]>
    private let faults = Mutex<[Fault: Int]>([:])
    private let faultRate: Double

    /// `count` files of 64–320 KiB, made from the seed.
    public init(seed: UInt64, count: Int, faultRate: Double = 0.5) {
        self.seed = seed
        self.faultRate = faultRate
        var random = SplitMix(seed: seed)
        var files: [String: File] = [:]
        for index in 0..<count {
            let size = 65_536 + Int(random.next() % 262_144)
            files["f\(index).bin"] = File(versions: [ChaosServer.content(seed: random.next(), size: size)])
        }
        self.files = Mutex(files)
    }

    /// Every version a file has had, oldest first: a finished download must equal one of them whole.
    public func versions(of name: String) -> [Data] { files.withLock { $0[name]?.versions ?? [] } }

    /// How many times each fault was injected.
    public var injected: [Fault: Int] { faults.withLock { $0 } }

    /// The routes: `/files/<name>` (and the permanent failures).
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/files/:name") { request, context in self.answer(request, name: context.parameters.get("name") ?? "") }
        return router
    }

    private func answer(_ request: Request, name: String) -> Response {
        if name.hasPrefix("missing-") { return Response(status: .notFound) }
        if name.hasPrefix("loop-") { return Response(status: .found, headers: [.location: "/files/\(name)"]) }
        let redirected = request.uri.query?.contains("via=redirect") == true
        let fault: Fault
        let data: Data
        let version: Int
        do {
            (fault, data, version) = try files.withLock { files throws(ChaosMissing) in
                guard var file = files[name] else { throw ChaosMissing() }
                var random = SplitMix(
                    seed:
                        seed ^ UInt64(truncatingIfNeeded: name.hashValueStable) ^ (UInt64(file.requests) &* 0x9E37_79B9_7F4A_7C15)
                )
                file.requests += 1
                var fault = Fault.none
                if !redirected, Double(random.next() % 1000) / 1000 < faultRate {
                    fault = Fault.allCases[1 + Int(random.next() % UInt64(Fault.allCases.count - 1))]
                }
                if fault == .changeContent {
                    file.versions.append(
                        ChaosServer.content(seed: random.next(), size: file.versions[0].count + Int(random.next() % 1000)))
                }
                files[name] = file
                return (fault, file.versions.last!, file.versions.count - 1)
            }
        } catch {
            return Response(status: .notFound)
        }
        faults.withLock { $0[fault, default: 0] += 1 }
        let etag = "\"\(name)-v\(version)\""
        let length = data.count
        var offset = 0
        if let range = request.headers[.range], range.hasPrefix("bytes="), range.hasSuffix("-"),
            let start = Int(range.dropFirst(6).dropLast()), request.headers[.ifRange] == etag
        {
            offset = start
        }
        var random = SplitMix(seed: seed &+ UInt64(length) &+ UInt64(offset))
        switch fault {
        case .unavailable:
            return Response(status: .serviceUnavailable, headers: [.retryAfter: "0"])
        case .tooMany:
            return Response(status: .tooManyRequests, headers: [.retryAfter: "0"])
        case .serverError:
            return Response(status: .internalServerError)
        case .redirect:
            return Response(status: .found, headers: [.location: "/files/\(name)?via=redirect"])
        case .ignoreRange:
            offset = 0
        default:
            break
        }
        guard offset < length else {
            return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(length)", .eTag: etag])
        }
        var headers: HTTPFields = [.eTag: etag, .acceptRanges: "bytes", .contentLength: String(length - offset)]
        let status: HTTPResponse.Status = offset > 0 ? .partialContent : .ok
        if offset > 0 {
            headers[.contentRange] = "bytes \(offset)-\(length - 1)/\(length)"
            if fault == .wrongContentRange { headers[.contentRange] = "bytes \(max(0, offset - 100))-\(length - 1)/\(length)" }
            if fault == .missingContentRange { headers[.contentRange] = nil }
        }
        let body = data[offset...]
        let cut = Int(random.next() % UInt64(max(1, body.count)))
        let drop = fault == .drop || fault == .stall
        let stall = fault == .stall
        return Response(
            status: status, headers: headers,
            body: ResponseBody(contentLength: body.count) { writer in
                if drop {
                    try await writer.write(ByteBuffer(bytes: body.prefix(cut)))
                    if stall { try await Task.sleep(for: .seconds(1)) }
                    throw CancellationError()
                }
                try await writer.write(ByteBuffer(bytes: body))
                try await writer.finish(nil)
            })
    }

    /// `size` seeded bytes: each of the generator's numbers, little-endian, one after another.
    /// A word at a time, not a byte: in a debug build the per-byte loop held a cooperative
    /// thread for seconds, which every other test's tasks wait for.
    static func content(seed: UInt64, size: Int) -> Data {
        var random = SplitMix(seed: seed)
        var data = Data(count: size)
        data.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < size {
                let value = random.next().littleEndian
                let count = min(8, size - offset)
                withUnsafeBytes(of: value) { word in
                    raw.baseAddress!.advanced(by: offset).copyMemory(from: word.baseAddress!, byteCount: count)
                }
                offset += count
            }
        }
        return data
    }
}

struct ChaosMissing: Error {}

extension String {
    /// FNV-1a, stable across runs (unlike `hashValue`).
    var hashValueStable: Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return Int(truncatingIfNeeded: hash)
    }
}
