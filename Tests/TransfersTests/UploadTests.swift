import Crypto
import Foundation
import Hummingbird
import Synchronization
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Upload tasks, as Foundation's: a body from memory or from a file, its progress out through
/// `didSendBodyData`, the answer as a data task's, and the body sent again on a 307 or 308.
@Suite("Upload tasks", .timeLimit(.minutes(1)))
struct UploadTests {
    /// Hears each upload's progress out and its answer.
    final class Uploads: ResumableDataDelegate, Sendable {
        let sent = Mutex<[(piece: Int64, total: Int64, expected: Int64)]>([])
        let body = Mutex(Data())
        let ended = AsyncStream<(any Error)?>.makeStream()

        func urlSession(
            _ session: ResumableURLSession, task: ResumableDataTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
            totalBytesExpectedToSend: Int64
        ) {
            sent.withLock { $0.append((bytesSent, totalBytesSent, totalBytesExpectedToSend)) }
        }

        func urlSession(_ session: ResumableURLSession, dataTask: ResumableDataTask, didReceive data: Data) {
            body.withLock { $0.append(data) }
        }

        func urlSession(_ session: ResumableURLSession, task: ResumableDataTask, didCompleteWithError error: (any Error)?) {
            ended.continuation.yield(error)
        }
    }

    /// `/upload` answers "METHOD length sha256" of the body it read; `/moved` is a 307 to it.
    /// Each request's method and path is logged.
    private func router(log: RequestLog<String>) -> Router<BasicRequestContext> {
        let router = Router()
        for method in [HTTPRequest.Method.post, .put] {
            router.on("/upload", method: method) { request, _ -> String in
                log.append("\(request.method) \(request.uri.path)")
                var hash = SHA256()
                var length = 0
                for try await piece in request.body {
                    hash.update(data: Data(buffer: piece))
                    length += piece.readableBytes
                }
                return "\(request.method) \(length) \(hash.finalize().map { String(format: "%02x", $0) }.joined())"
            }
            router.on("/moved", method: method) { request, _ in
                log.append("\(request.method) \(request.uri.path)")
                return Response(status: .temporaryRedirect, headers: [.location: "/upload"])
            }
        }
        return router
    }

    private func digest(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    private func request(_ url: URL, method: String = "POST") -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        return request
    }

    @Test("a 10 MiB file: the server reads every byte; didSendBodyData counts up to the size, in order; the answer arrives")
    func fromFile() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let file = folder.appendingPathComponent("upload.bin")
                // 160 different 64 KiB blocks, made without a closure per byte (a debug build's
                // per-byte loop holds one of the suite's few threads for seconds).
                var bytes = Data(capacity: 10 << 20)
                for block in 0..<160 {
                    bytes.append(Data(repeating: UInt8(truncatingIfNeeded: block &* 37 &+ 11), count: 1 << 16))
                }
                try bytes.write(to: file)
                let delegate = Uploads()
                let configuration = ResumableURLSessionConfiguration.ephemeral
                configuration.stateDirectory = folder
                let session = ResumableURLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
                defer { session.invalidateAndCancel() }
                let task = session.uploadTask(with: request(base.appendingPathComponent("upload"), method: "PUT"), fromFile: file)
                task.resume()
                var ends = delegate.ended.stream.makeAsyncIterator()
                let error = try #require(await ends.next())
                #expect(error == nil)
                #expect(String(decoding: delegate.body.withLock { $0 }, as: UTF8.self) == "PUT \(bytes.count) \(digest(bytes))")
                let sent = delegate.sent.withLock { $0 }
                #expect(sent.count > 1)
                #expect(sent.last?.total == Int64(bytes.count))
                #expect(sent.allSatisfy { $0.expected == Int64(bytes.count) })
                #expect(zip(sent, sent.dropFirst()).allSatisfy { $1.total == $0.total + $1.piece })
                #expect(task.countOfBytesSent == Int64(bytes.count) && task.countOfBytesExpectedToSend == Int64(bytes.count))
            }
        }
    }

    @Test("from memory, with a completion handler and with upload(for:from:); a 307 sends the body again to the new URL")
    func fromMemoryAndRedirect() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
                let configuration = ResumableURLSessionConfiguration.ephemeral
                configuration.stateDirectory = folder
                let session = ResumableURLSession(configuration: configuration)
                defer { session.invalidateAndCancel() }
                let (data, response, error) = await withCheckedContinuation { continuation in
                    session.uploadTask(with: request(base.appendingPathComponent("upload")), from: bytes) {
                        continuation.resume(returning: ($0, $1, $2))
                    }.resume()
                }
                #expect(error == nil)
                #expect((response as? HTTPURLResponse)?.statusCode == 200)
                #expect(data.map { String(decoding: $0, as: UTF8.self) } == "POST \(bytes.count) \(digest(bytes))")

                let (moved, movedResponse) = try await session.upload(
                    for: request(base.appendingPathComponent("moved")), from: bytes)
                #expect(String(decoding: moved, as: UTF8.self) == "POST \(bytes.count) \(digest(bytes))")
                #expect((movedResponse as? HTTPURLResponse)?.url?.path == "/upload")
                #expect(log.all == ["POST /upload", "POST /moved", "POST /upload"])
            }
        }
    }

    @Test("a file that cannot be read fails the task with a URLError naming it; nothing is sent")
    func unreadableFile() async throws {
        let log = RequestLog<String>()
        try await withTestServer(router(log: log)) { base in
            try await withTemporaryDirectory { folder in
                let configuration = ResumableURLSessionConfiguration.ephemeral
                configuration.stateDirectory = folder
                let session = ResumableURLSession(configuration: configuration)
                defer { session.invalidateAndCancel() }
                let missing = folder.appendingPathComponent("not-there.bin")
                await #expect(throws: URLError.self) {
                    _ = try await session.upload(for: request(base.appendingPathComponent("upload")), fromFile: missing)
                }
                do {
                    _ = try await session.upload(for: request(base.appendingPathComponent("upload")), fromFile: missing)
                } catch let error as URLError {
                    #expect(error.code == .fileDoesNotExist)
                    #expect(error.localizedDescription.contains("not-there.bin"), "\(error.localizedDescription)")
                }
                #expect(log.count == 0)
            }
        }
    }
}
