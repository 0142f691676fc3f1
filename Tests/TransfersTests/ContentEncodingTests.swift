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
    /// Text that compresses well but not to nothing: numbered lines.
    private let original = Data((0..<20_000).map { "line \($0) of the catalog's answer\n" }.joined().utf8)

    @Test("gzip and deflate: Accept-Encoding asked, the body decoded, Content-Encoding kept, the expected length the encoded one")
    func decoded() async throws {
        let encodings = RequestLog<String>()
        let gzipBody = try await gzipped(original)
        let deflateBody = try await deflated(original)
        let router = Router()
        router.get("/gzip") { request, _ in
            encodings.append(request.headers[.acceptEncoding] ?? "none")
            return Response(status: .ok, headers: [.contentEncoding: "gzip"], body: .init(byteBuffer: ByteBuffer(data: gzipBody)))
        }
        router.get("/deflate") { _, _ in
            Response(status: .ok, headers: [.contentEncoding: "deflate"], body: .init(byteBuffer: ByteBuffer(data: deflateBody)))
        }
        try await withTestServer(router) { base in
            try await withTemporaryDirectory { folder in
                let configuration = ResumableURLSessionConfiguration.ephemeral
                configuration.stateDirectory = folder
                let session = ResumableURLSession(configuration: configuration)
                defer { session.invalidateAndCancel() }
                for (path, encoded) in [("gzip", gzipBody), ("deflate", deflateBody)] {
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
