import Foundation
import Hummingbird
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Data tasks ask for gzip and deflate and hand over the decoded body, as Foundation's do; the
/// response keeps the server's `Content-Encoding`, and its expected length is the encoded one.
@Suite("Compressed bodies of data tasks", .timeLimit(.minutes(1)))
struct ContentEncodingTests {
    /// `bytes` compressed by the system's `gzip` (an independent encoder), without a name or time,
    /// on a thread of its own (the wait for the process would hold one of the suite's threads).
    private func gzip(_ bytes: Data) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try gzipNow(bytes) }) }
        }
    }

    private func gzipNow(_ bytes: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-c", "-n", "-6"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let writer = Thread {
            input.fileHandleForWriting.write(bytes)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let compressed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return compressed
    }

    /// HTTP's `deflate` (the zlib format): gzip's deflate stream between a zlib header and the
    /// Adler-32 of the original.
    private func deflate(_ bytes: Data) async throws -> Data {
        let gzipped = try await gzip(bytes)
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        let adler = (b << 16) | a
        return Data([0x78, 0x9C]) + gzipped[10..<(gzipped.count - 8)]
            + Data([UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)])
    }

    /// Text that compresses well but not to nothing: numbered lines.
    private let original = Data((0..<20_000).map { "line \($0) of the catalog's answer\n" }.joined().utf8)

    @Test("gzip and deflate: Accept-Encoding asked, the body decoded, Content-Encoding kept, the expected length the encoded one")
    func decoded() async throws {
        let encodings = RequestLog<String>()
        let gzipped = try await gzip(original)
        let deflated = try await deflate(original)
        let router = Router()
        router.get("/gzip") { request, _ in
            encodings.append(request.headers[.acceptEncoding] ?? "none")
            return Response(status: .ok, headers: [.contentEncoding: "gzip"], body: .init(byteBuffer: ByteBuffer(data: gzipped)))
        }
        router.get("/deflate") { _, _ in
            Response(status: .ok, headers: [.contentEncoding: "deflate"], body: .init(byteBuffer: ByteBuffer(data: deflated)))
        }
        try await withTestServer(router) { base in
            try await withTemporaryDirectory { folder in
                let configuration = ResumableURLSessionConfiguration.ephemeral
                configuration.stateDirectory = folder
                let session = ResumableURLSession(configuration: configuration)
                defer { session.invalidateAndCancel() }
                for (path, encoded) in [("gzip", gzipped), ("deflate", deflated)] {
                    let (data, response) = try await session.data(from: base.appendingPathComponent(path))
                    #expect(sameBytes(data, original), "\(path): \(data.count) bytes, not \(original.count)")
                    let http = try #require(response as? HTTPURLResponse)
                    #expect(http.value(forHTTPHeaderField: "Content-Encoding") == path)
                    #expect(http.expectedContentLength == Int64(encoded.count), "\(path)")
                }
                let asked = try #require(encodings.all.first)
                #expect(asked.contains("gzip") && asked.contains("deflate"), "\(asked)")
            }
        }
    }

    @Test("a request that names its own Accept-Encoding sends it as it is; an identity body arrives untouched")
    func ownAcceptEncoding() async throws {
        let encodings = RequestLog<String>()
        let router = Router()
        router.get("/plain") { request, _ -> String in
            encodings.append(request.headers[.acceptEncoding] ?? "none")
            return "as it is"
        }
        try await withTestServer(router) { base in
            try await withTemporaryDirectory { folder in
                let configuration = ResumableURLSessionConfiguration.ephemeral
                configuration.stateDirectory = folder
                let session = ResumableURLSession(configuration: configuration)
                defer { session.invalidateAndCancel() }
                var request = URLRequest(url: base.appendingPathComponent("plain"))
                request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
                let (data, _) = try await session.data(for: request)
                #expect(String(decoding: data, as: UTF8.self) == "as it is")
                #expect(encodings.all == ["identity"])
            }
        }
    }
}
