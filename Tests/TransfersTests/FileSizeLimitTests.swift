import Foundation
import Hummingbird
import TestSupport
import Testing

@testable import TransferEngine

/// The session's `maximumFileSize`, against a server that announces or streams more than it.
@Suite("File size limit", .timeLimit(.minutes(1)))
struct FileSizeLimitTests {
    static let limit: Int64 = 256 << 10

    /// What a route of the server sends.
    enum Body: String, CaseIterable, CustomTestStringConvertible {
        /// `Content-Length` of 1 TiB, then bytes for as long as the client reads.
        case announcedHuge
        /// One byte more than the limit, announced.
        case announcedOneOver
        /// No length (chunked), bytes for as long as the client reads.
        case endless
        /// Exactly the limit.
        case exact

        var testDescription: String { rawValue }
    }

    /// Bytes for as long as the client reads, but never more than 256 MiB: a session that does
    /// not stop them ends up with a file, which the test then sees.
    static func stream(_ writer: inout some ResponseBodyWriter) async throws {
        let piece = ByteBuffer(repeating: 0x5A, count: 64 << 10)
        for _ in 0..<4096 { try await writer.write(piece) }
        try await writer.finish(nil)
    }

    static func router(served: RequestLog<String>) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/:body") { _, context in
            let body = Body(rawValue: context.parameters.get("body") ?? "") ?? .exact
            served.append(body.rawValue)
            switch body {
            case .announcedHuge:
                return Response(
                    status: .ok, headers: [.contentLength: "\(Int64(1) << 40)"],
                    body: ResponseBody { writer in try await stream(&writer) })
            case .announcedOneOver:
                return Response(
                    status: .ok, headers: [.contentLength: "\(limit + 1)"],
                    body: .init(byteBuffer: ByteBuffer(repeating: 1, count: Int(limit + 1))))
            case .endless:
                return Response(status: .ok, body: ResponseBody { writer in try await stream(&writer) })
            case .exact:
                return Response(
                    status: .ok, headers: [.contentLength: "\(limit)"],
                    body: .init(byteBuffer: ByteBuffer(repeating: 2, count: Int(limit))))
            }
        }
        return router
    }

    @Test(
        "a file over the limit fails for good, announced or streamed, with no file or partial left; one of exactly the limit lands",
        arguments: Body.allCases)
    func limit(_ body: Body) async throws {
        let served = RequestLog<String>()
        try await withTestServer(Self.router(served: served)) { base in
            var configuration = TransferSessionConfiguration(retryPolicy: quickRetries)
            configuration.maximumFileSize = Self.limit
            try await withSession(configuration) { session, folder in
                let destination = folder.appendingPathComponent("file.m4a")
                let url = base.appendingPathComponent(body.rawValue)
                let id = try await session.start(url: url, destination: destination)
                let ended = try await session.wait(for: id)
                if body == .exact {
                    #expect(ended.state == .completed)
                    let size = try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int
                    #expect(size.map(Int64.init) == Self.limit)
                    return
                }
                #expect(ended.state == .failed)
                let failure = try #require(ended.failure)
                #expect(failure.code == .fileTooLarge)
                #expect(failure.isPermanent)
                let said =
                    body == .endless ? "went past" : "is \(body == .announcedHuge ? Int64(1) << 40 : Self.limit + 1) bytes, over"
                #expect(failure.message == "the file at \(url.absoluteString) \(said) the \(Self.limit)-byte limit")
                #expect(!FileManager.default.fileExists(atPath: destination.path))
                #expect(!FileManager.default.fileExists(atPath: destination.path + ".part"))
                // For good: asked once, not retried.
                #expect(served.all == [body.rawValue])
            }
        }
    }
}
