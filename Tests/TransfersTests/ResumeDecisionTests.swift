import Foundation
import Testing

@testable import TransferEngine

@Suite("Range and If-Range decisions (pure)")
struct ResumeDecisionTests {
    private let strong = Validator(etag: "\"v1\"", lastModified: "Sun, 22 Nov 2026 01:00:00 GMT")

    @Test("resume asks for the rest with If-Range; nothing on disk or no validator asks for all")
    func requestHeaders() {
        let headers = RangeRequest.headers(bytesOnDisk: 500, validator: strong)
        #expect(headers.map(\.name) == ["Range", "If-Range"])
        #expect(headers.map(\.value) == ["bytes=500-", "\"v1\""])
        #expect(RangeRequest.headers(bytesOnDisk: 0, validator: strong).isEmpty)
        #expect(RangeRequest.headers(bytesOnDisk: 500, validator: Validator()).isEmpty)
        // A weak ETag cannot be used with If-Range; the date can.
        let weak = Validator(etag: "W/\"v1\"", lastModified: "Sun, 22 Nov 2026 01:00:00 GMT")
        #expect(RangeRequest.headers(bytesOnDisk: 5, validator: weak).last?.value == "Sun, 22 Nov 2026 01:00:00 GMT")
        #expect(RangeRequest.headers(bytesOnDisk: 5, validator: Validator(etag: "W/\"x\"")).isEmpty)
        #expect(RangeRequest.requestedOffset(bytesOnDisk: 500, validator: Validator()) == 0)
    }

    private func decide(_ head: ResponseDecision.Head, offset: Int64 = 500, onDisk: Int64 = 500) -> ResponseDecision {
        ResponseDecision.decide(head, requestedOffset: offset, bytesOnDisk: onDisk, validator: strong)
    }

    @Test("206 starting where asked appends")
    func appends() {
        let head = ResponseDecision.Head(status: 206, contentRange: "bytes 500-999/1000", contentLength: 500, etag: "\"v1\"")
        #expect(decide(head) == .write(offset: 500, expectedTotal: 1000))
        #expect(decide(.init(status: 206, contentRange: "bytes 500-999/*")) == .write(offset: 500, expectedTotal: nil))
    }

    @Test("200 means start over with the whole resource")
    func full() {
        #expect(decide(.init(status: 200, contentLength: 1200)) == .write(offset: 0, expectedTotal: 1200))
        #expect(decide(.init(status: 200)) == .write(offset: 0, expectedTotal: nil))
    }

    @Test(
        "a 206 that does not match the request is refused",
        arguments: [
            ResponseDecision.Head(status: 206, contentRange: "bytes 0-999/1000"),
            ResponseDecision.Head(status: 206, contentRange: "bytes 400-999/1000"),
            ResponseDecision.Head(status: 206),
            ResponseDecision.Head(status: 206, contentRange: "bytes */1000"),
            ResponseDecision.Head(status: 206, contentRange: "garbage"),
            ResponseDecision.Head(status: 206, contentRange: "bytes 500-599/1000"),
            ResponseDecision.Head(status: 206, contentRange: "bytes 500-999/1000", contentLength: 10),
            ResponseDecision.Head(status: 206, contentRange: "bytes 500-999/1000", etag: "\"v2\""),
        ])
    func refused(head: ResponseDecision.Head) {
        guard case .restart = decide(head) else {
            Issue.record("expected a restart for \(head), got \(decide(head))")
            return
        }
    }

    @Test("416: complete when the length matches what is on disk, else start over")
    func unsatisfiable() {
        #expect(decide(.init(status: 416, contentRange: "bytes */500")) == .alreadyComplete(total: 500))
        guard case .restart = decide(.init(status: 416, contentRange: "bytes */900")) else {
            Issue.record("a 416 whose total is past the bytes on disk is not complete: it must restart")
            return
        }
        guard case .restart = decide(.init(status: 416, contentRange: "bytes */400")) else {
            Issue.record("a shorter resource must restart")
            return
        }
        guard case .restart = decide(.init(status: 416)) else {
            Issue.record("416 without a length must restart")
            return
        }
    }

    @Test("transient statuses retry with the server's wait; others fail", arguments: [408, 429, 500, 502, 503, 504, 599])
    func transient(status: Int) {
        #expect(decide(.init(status: status, retryAfter: .seconds(3))) == .retry(status: status, retryAfter: .seconds(3)))
    }

    @Test("client errors are permanent", arguments: [400, 401, 403, 404, 410, 451, 304])
    func permanent(status: Int) {
        #expect(decide(.init(status: status)) == .fail(status: status))
    }

    @Test("Content-Range parsing")
    func contentRange() {
        #expect(ContentRange("bytes 0-99/100") == ContentRange("bytes 0-99/100"))
        #expect(ContentRange("bytes 0-99/100")?.range == 0...99)
        #expect(ContentRange("bytes 0-99/100")?.total == 100)
        #expect(ContentRange("bytes 5-9/*")?.total == nil)
        #expect(ContentRange("bytes */77")?.range == nil)
        #expect(ContentRange("bytes */77")?.total == 77)
        #expect(ContentRange("  Bytes  10-19/20 ")?.range == 10...19, "the unit in any case, spaces around")
        #expect(ContentRange("bytes 0-999999999999999998/999999999999999999")?.total == 999_999_999_999_999_999)
        let bad = [
            "bytes 9-5/100", "bytes 0-100/100", "items 0-1/2", "bytes */*", "bytes 1-2", "bytes -1-2/5", "bytes 0-1/x", "",
            "bytes ", "bytes", "bytes 0-1/1000000000000000000", "bytes ０-1/2", "bytes 0-1/2x", "bytes 0--1/2",
        ]
        for bad in bad {
            #expect(ContentRange(bad) == nil, "\(bad) should not parse")
        }
    }
}
