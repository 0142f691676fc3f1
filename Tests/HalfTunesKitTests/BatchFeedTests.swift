import HalfTunesKit
import HalfTunesTerminal
import Testing

@Suite("A batch's ids handed over a slice at a time (pure)")
struct BatchFeedTests {
    /// Every slice the feed hands over when, after each, `finishing` of the unfinished finish.
    private func slices(_ feed: BatchFeed, finishing: Int) -> (slices: [[Int]], mostUnfinished: Int) {
        var feed = feed
        var unfinished = 0
        var slices: [[Int]] = []
        var most = 0
        while !feed.isExhausted {
            while let slice = feed.nextSlice(unfinished: unfinished) {
                slices.append(Array(slice))
                unfinished += slice.count
            }
            most = max(most, unfinished)
            unfinished -= min(unfinished, finishing)
        }
        return (slices, most)
    }

    @Test("by default: slices of one catalog call (200 ids), the next when 100 are left")
    func defaults() {
        var feed = BatchFeed(Array(1...1000))
        #expect(feed.limit == 300)
        #expect(feed.sliceSize == 200)
        #expect(feed.nextSlice(unfinished: 0) == ArraySlice(1...200))
        #expect(feed.nextSlice(unfinished: 200) == nil)
        #expect(feed.nextSlice(unfinished: 101) == nil)
        #expect(feed.nextSlice(unfinished: 100) == ArraySlice(201...400))
        #expect(feed.remaining == 600)
    }

    @Test("never more unfinished than the limit, and every id once, in order", arguments: [1, 2, 3, 7, 400, 1000])
    func bounded(limit: Int) {
        let ids = Array(1...1234)
        let (slices, most) = slices(BatchFeed(ids, limit: limit), finishing: 3)
        #expect(most <= limit)
        #expect(slices.flatMap { $0 } == ids)
        #expect(slices.allSatisfy { $0.count <= min(200, max(1, 2 * limit / 3)) })
    }

    @Test("ids given twice are fetched once; the last slice is what is left")
    func duplicates() {
        var feed = BatchFeed([5, 6, 5, 7, 6, 8, 9], limit: 4)
        #expect(feed.ids == [5, 6, 7, 8, 9])
        #expect(feed.nextSlice(unfinished: 0) == [5, 6])
        #expect(feed.nextSlice(unfinished: 2) == [7, 8])
        #expect(feed.nextSlice(unfinished: 3) == nil)
        #expect(feed.nextSlice(unfinished: 1) == [9])
        #expect(feed.isExhausted)
        #expect(feed.nextSlice(unfinished: 0) == nil)
    }

    @Test("the upcoming slice is the one handed over next, whenever there is room", arguments: [1, 4, 300])
    func upcoming(limit: Int) {
        var feed = BatchFeed(Array(1...450), limit: limit)
        var handed: [Int] = []
        while !feed.isExhausted {
            let upcoming = feed.upcoming
            #expect(!upcoming.isEmpty)
            #expect(feed.nextSlice(unfinished: 0) == upcoming)
            handed += upcoming
        }
        #expect(handed == Array(1...450))
        #expect(feed.upcoming.isEmpty)
    }

    @Test("a limit below 1 is taken as 1")
    func smallest() {
        var feed = BatchFeed([1, 2], limit: 0)
        #expect(feed.limit == 1)
        #expect(feed.nextSlice(unfinished: 0) == [1])
        #expect(feed.nextSlice(unfinished: 1) == nil)
    }
}
