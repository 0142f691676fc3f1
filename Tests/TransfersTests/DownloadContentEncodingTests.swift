import Foundation
import Hummingbird
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Download tasks ask for gzip and deflate, keep the body as the server sent it while it arrives
/// (so a resume's ranges count the server's bytes), and hand over the decoded file, as Apple's do.
@Suite("Compressed bodies of download tasks", .timeLimit(.minutes(1)))
struct DownloadContentEncodingTests {
    /// Text that compresses well but not to nothing: numbered lines (about 900 KB).
    private let original = Data((0..<25_000).map { "line \($0) of a compressed download\n" }.joined().utf8)

    /// A server of one encoded representation at `/file`, with a strong ETag, honouring `Range`
    /// over the encoded bytes; its first answer is cut after `cutAfter` bytes when given.
    private struct EncodedFile: Sendable {
        let body: Data
        let coding: String?
        let contentType: String
        let cutAfter: Int?
        let log = RequestLog<(range: String?, ifRange: String?, acceptEncoding: String?)>()
        let etag = "\"encoded-v1\""

        func router() -> Router<BasicRequestContext> {
            let router = Router()
            router.get("/file") { request, _ in
                let range = request.headers[.range]
                log.append((range, request.headers[.ifRange], request.headers[.acceptEncoding]))
                var headers: HTTPFields = [.eTag: etag, .contentType: contentType]
                if let coding { headers[.contentEncoding] = coding }
                let body = body
                if let range, let offset = Int(range.dropFirst("bytes=".count).dropLast()) {
                    headers[.contentRange] = "bytes \(offset)-\(body.count - 1)/\(body.count)"
                    return Response(
                        status: .partialContent, headers: headers, body: .init(byteBuffer: ByteBuffer(data: body[offset...])))
                }
                headers[.contentLength] = "\(body.count)"
                guard let cutAfter, log.all.count == 1 else {
                    return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: body)))
                }
                return Response(
                    status: .ok, headers: headers,
                    body: ResponseBody { writer in
                        try await writer.write(ByteBuffer(data: body.prefix(cutAfter)))
                        throw CancellationError()
                    })
            }
            return router
        }
    }

    /// Downloads `/file` from `server` with `request` tuned by `tune`; the recorder and the task.
    private func download(
        _ server: EncodedFile, tune: @escaping @Sendable (inout URLRequest) -> Void = { _ in },
        _ check: @escaping (DelegateRecorder, ResumableDownloadTask, URL) async throws -> Void
    ) async throws {
        try await withTestServer(server.router()) { base in
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    var request = URLRequest(url: base.appendingPathComponent("file"))
                    tune(&request)
                    let task = session.downloadTask(with: request)
                    task.resume()
                    try await check(recorder, task, folder)
                }
            }
        }
    }

    @Test("gzip and deflate: asked for, and the file handed over decoded, Content-Encoding kept on the response")
    func decoded() async throws {
        for (coding, body) in [("gzip", try await gzipped(original)), ("deflate", try await deflated(original))] {
            let server = EncodedFile(body: body, coding: coding, contentType: "text/plain", cutAfter: nil)
            try await download(server) { recorder, task, _ in
                #expect(await recorder.completion(of: task) == nil, "\(coding)")
                let file = try #require(recorder.file(of: task))
                #expect(sameBytes(file, original), "\(coding): \(file.count) bytes, not \(original.count)")
                let response = try #require(task.response as? HTTPURLResponse)
                #expect(response.value(forHTTPHeaderField: "Content-Encoding") == coding)
                let asked = try #require(server.log.all.first?.acceptEncoding)
                #expect(asked.contains("gzip") && asked.contains("deflate"), "\(asked)")
            }
        }
    }

    @Test("a gzip body cut mid-way is resumed with Range over its encoded bytes, then decoded whole")
    func resumedThenDecoded() async throws {
        let body = try await gzipped(original)
        let server = EncodedFile(body: body, coding: "gzip", contentType: "text/plain", cutAfter: body.count / 2)
        try await download(server) { recorder, task, _ in
            #expect(await recorder.completion(of: task) == nil)
            let taskFile = try #require(recorder.file(of: task))
            #expect(sameBytes(taskFile, original))
            let requests = server.log.all
            #expect(requests.count == 2, "\(requests)")
            let resumed = try #require(requests.last)
            let offset = try #require(resumed.range.flatMap { Int($0.dropFirst("bytes=".count).dropLast()) })
            #expect(offset > 0 && offset <= body.count / 2, "\(resumed)")
            #expect(resumed.ifRange == server.etag && resumed.acceptEncoding?.contains("gzip") == true, "\(resumed)")
        }
    }

    @Test("a damaged gzip body fails the task with cannotDecodeContentData and leaves no file behind")
    func damaged() async throws {
        var body = try await gzipped(original)
        body = body.prefix(body.count / 2) + Data(repeating: 0x55, count: 64) + body.suffix(from: body.count / 2 + 64)
        let server = EncodedFile(body: body, coding: "gzip", contentType: "text/plain", cutAfter: nil)
        try await download(server) { recorder, task, folder in
            let error = try #require(await recorder.completion(of: task) as? URLError)
            #expect(error.code == .cannotDecodeContentData, "\(error)")
            #expect(error.localizedDescription.contains("gzip"), "\(error.localizedDescription)")
            #expect(recorder.file(of: task) == nil)
            let left = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter {
                $0.hasSuffix(".decoded") || $0.hasSuffix(".part")
            }
            #expect(left.isEmpty, "\(left)")
        }
    }

    @Test("a .gz file sent without Content-Encoding, or asked for as identity, arrives as the server's bytes")
    func notACoding() async throws {
        let body = try await gzipped(original)
        let plain = EncodedFile(body: body, coding: nil, contentType: "application/gzip", cutAfter: nil)
        try await download(plain) { recorder, task, _ in
            #expect(await recorder.completion(of: task) == nil)
            let taskFile = try #require(recorder.file(of: task))
            #expect(sameBytes(taskFile, body))
        }
        // The request's own Accept-Encoding is sent as it is; a server that encodes anyway is not
        // undone when identity was asked.
        let stubborn = EncodedFile(body: body, coding: "gzip", contentType: "text/plain", cutAfter: nil)
        let identity: @Sendable (inout URLRequest) -> Void = { $0.setValue("identity", forHTTPHeaderField: "Accept-Encoding") }
        try await download(stubborn, tune: identity) { recorder, task, _ in
            #expect(await recorder.completion(of: task) == nil)
            let taskFile = try #require(recorder.file(of: task))
            #expect(sameBytes(taskFile, body))
            #expect(stubborn.log.all.map(\.acceptEncoding) == ["identity"])
        }
    }
}
