import Testing

@testable import DemoCatalog
@testable import HTTPRanges

@Suite("Range decisions (pure)")
struct RangeDecisionTests {
    private let etag = "\"1-v0-1000\""
    private let date = "Sun, 22 Nov 2026 01:00:00 GMT"

    private func decide(_ range: String?, ifRange: String? = nil, length: Int = 1000) -> RangeDecision {
        RangeDecision.decide(range: range, ifRange: ifRange, etag: etag, lastModified: date, length: length)
    }

    @Test("no Range: the whole thing")
    func noRange() { #expect(decide(nil) == .full) }

    @Test("open, closed and suffix ranges")
    func ranges() {
        #expect(decide("bytes=100-") == .partial(100...999))
        #expect(decide("bytes=0-0") == .partial(0...0))
        #expect(decide("bytes=100-199") == .partial(100...199))
        #expect(decide("bytes=900-5000") == .partial(900...999))
        #expect(decide("bytes=-10") == .partial(990...999))
        #expect(decide("bytes=-5000") == .partial(0...999))
    }

    @Test("a range starting at or past the end is unsatisfiable")
    func unsatisfiable() {
        #expect(decide("bytes=1000-") == .unsatisfiable)
        #expect(decide("bytes=5000-6000") == .unsatisfiable)
        #expect(decide("bytes=-0") == .unsatisfiable)
        #expect(decide("bytes=0-", length: 0) == .unsatisfiable)
    }

    @Test(
        "malformed and multi-range headers are ignored",
        arguments: [
            "bytes=abc-", "bytes=5-1", "items=0-1", "bytes=0-1,5-6", "bytes=", "bytes=--1", "bytes=99999999999999999999-",
        ])
    func ignored(range: String) { #expect(decide(range) == .full) }

    @Test("If-Range: a matching ETag or date keeps the range; anything else gets the whole thing")
    func ifRange() {
        #expect(decide("bytes=10-", ifRange: etag) == .partial(10...999))
        #expect(decide("bytes=10-", ifRange: date) == .partial(10...999))
        #expect(decide("bytes=10-", ifRange: "\"1-v1-1000\"") == .full)
        #expect(decide("bytes=10-", ifRange: "W/\(etag)") == .full)
        #expect(decide("bytes=10-", ifRange: "Mon, 23 Nov 2026 01:00:00 GMT") == .full)
        #expect(decide("bytes=5000-", ifRange: "\"stale\"") == .full)
    }
}

@Suite("Query parsing (pure)")
struct FormQueryTests {
    @Test("plus is a space, escapes are UTF-8, the first value wins")
    func parse() {
        let query = FormQuery.parse("term=rock+%26+roll&country=jp&x=%E3%83%A9%E3%83%96&term=second&flag&bad=%ZZ")
        #expect(query["term"] == "rock & roll")
        #expect(query["country"] == "jp")
        #expect(query["x"] == "ラブ")
        #expect(query["flag"] == "")
        #expect(query["bad"] == "")
        #expect(FormQuery.parse(nil).isEmpty)
        #expect(FormQuery.decode("%FF") == nil)
    }
}
