import Foundation
import HalfTunesKit
import Testing

@testable import HalfTunesClient
@testable import HalfTunesWeb

@Suite("SSE parser (pure)")
struct SSEParserTests {
    private let stream =
        "retry: 1000\n: connected\n\ndata: {\"a\":1}\n\ndata: line one\ndata: line two\n\nevent: x\n\ndata:no-space\r\n\r\ndata: last\r\rdata: pending"

    @Test("events come out once each, whatever the chunking, with LF, CRLF and CR line ends")
    func chunking() {
        let expected = ["{\"a\":1}", "line one\nline two", "no-space", "last"]
        let bytes = Array(stream.utf8)
        for size in [1, 2, 3, 7, bytes.count] {
            var parser = SSEParser()
            var events: [String] = []
            for start in stride(from: 0, to: bytes.count, by: size) {
                events += parser.feed(bytes[start..<min(start + size, bytes.count)])
            }
            #expect(events == expected, "chunks of \(size)")
        }
    }

    @Test("a comment or a field other than data makes no event; an unfinished event waits")
    func nothingToSay() {
        var parser = SSEParser()
        #expect(parser.feed(Array(": keep-alive\n\nid: 4\n\n".utf8)).isEmpty)
        #expect(parser.feed(Array("data: half".utf8)).isEmpty)
        #expect(parser.feed(Array("\n\n".utf8)) == ["half"])
    }
}

@Suite("Error mapping at the HTTP edge (pure)")
struct ErrorMappingTests {
    @Test(
        "each code has one status; the body is {v, code, message}, with Retry-After when rate limited",
        arguments: [
            (DownloadError.Code.notFound, 404), (.conflict, 409), (.badInput, 400), (.upstreamFailure, 502),
            (.rateLimited, 429), (.forbidden, 403), (.internalError, 500),
        ])
    func status(code: DownloadError.Code, status: Int) throws {
        #expect(ErrorMapping.status(for: code).code == status)
        let response = ErrorMapping.response(DownloadError(code, "why", retryAfter: code == .rateLimited ? 60 : nil))
        #expect(response.status.code == status)
        #expect(response.headers[.retryAfter] == (code == .rateLimited ? "60" : nil))
    }

    @Test("every code is mapped, to statuses that differ")
    func complete() {
        let statuses = DownloadError.Code.allCases.map { ErrorMapping.status(for: $0).code }
        #expect(Set(statuses).count == DownloadError.Code.allCases.count)
    }

    @Test(
        "only loopback hosts are served without an exposure warning",
        arguments: [
            ("127.0.0.1", false), ("127.0.0.2", false), ("localhost", false), ("::1", false),
            ("0.0.0.0", true), ("::", true), ("192.168.1.5", true), ("127.example.com", true),
        ])
    func exposure(host: String, warns: Bool) {
        #expect((WebServer.exposureWarning(for: host) != nil) == warns, "\(host)")
    }
}
