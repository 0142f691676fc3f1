import Testing

@testable import HalfTunesKit
@testable import HalfTunesTerminal

@Suite("The terminal display's rows for a batch (pure)")
struct ProgressLayoutTests {
    typealias Kind = ProgressLayout.Kind

    @Test("what fits is drawn a row each; a lone queued track keeps its row")
    func allFit() {
        let plan = ProgressLayout.plan([.downloading, .queued, .downloading], height: 20, withTotal: true)
        #expect(plan == .init(shown: [0, 1, 2], rest: nil))
    }

    @Test("two or more queued tracks share one line, however tall the window")
    func queuedCollapse() {
        let kinds = [Kind](repeating: .downloading, count: 4) + [Kind](repeating: .queued, count: 296)
        let plan = ProgressLayout.plan(kinds, height: 500, withTotal: true)
        #expect(plan == .init(shown: [0, 1, 2, 3], rest: "… and 296 queued"))
    }

    @Test("past the window's height: downloads keep their rows first, the rest counted by state")
    func tooTall() {
        // A window of 6 rows: 5 for the drawing, 1 of them the total, 1 the line for the rest.
        let kinds: [Kind] = [.paused, .queued, .downloading, .downloading, .paused, .queued, .downloading, .downloading]
        let plan = ProgressLayout.plan(kinds, height: 6, withTotal: true)
        #expect(plan == .init(shown: [2, 3, 6], rest: "… and 1 more downloading, 2 paused, 2 queued"))
        // Without a total line, one more row: the fourth download's.
        let wider = ProgressLayout.plan(kinds, height: 6, withTotal: false)
        #expect(wider == .init(shown: [2, 3, 6, 7], rest: "… and 2 paused, 2 queued"))
    }

    @Test("a window too low for any track's row: the line for them all, or nothing but the total")
    func tinyWindows() {
        let kinds: [Kind] = [.downloading, .downloading, .other]
        #expect(
            ProgressLayout.plan(kinds, height: 3, withTotal: true) == .init(shown: [], rest: "… and 2 downloading, 1 not started")
        )
        #expect(ProgressLayout.plan(kinds, height: 2, withTotal: true) == .init(shown: [], rest: nil))
        #expect(
            ProgressLayout.plan(kinds, height: 0, withTotal: false)
                == .init(shown: [], rest: "… and 2 downloading, 1 not started"))
        #expect(ProgressLayout.plan([], height: 24, withTotal: true) == .init(shown: [], rest: nil))
    }

    @Test("any batch, any height: the drawing fits and every track is drawn or counted once")
    func fitsAndCounts() {
        var generator = SplitMix(seed: 14)
        for _ in 0..<2_000 {
            let kinds = (0..<Int.random(in: 0...40, using: &generator)).map { _ in Kind.allCases.randomElement(using: &generator)!
            }
            let height = Int.random(in: 0...30, using: &generator)
            let withTotal = Bool.random(using: &generator)
            let plan = ProgressLayout.plan(kinds, height: height, withTotal: withTotal)
            let drawn = plan.shown.count + (plan.rest == nil ? 0 : 1) + (withTotal ? 1 : 0)
            #expect(drawn <= max(1, height - 1), "\(kinds) in \(height) rows")
            #expect(plan.shown == plan.shown.sorted() && Set(plan.shown).count == plan.shown.count)
            let counted = (plan.rest ?? "").split(separator: " ").compactMap { Int($0) }.reduce(0, +)
            if plan.rest != nil || !plan.shown.isEmpty || kinds.isEmpty {
                #expect(plan.shown.count + counted == kinds.count, "\(kinds) in \(height) rows: \(plan)")
            }
        }
    }
}

/// A small seeded generator, so a failure repeats.
private struct SplitMix: RandomNumberGenerator {
    var seed: UInt64
    mutating func next() -> UInt64 {
        seed &+= 0x9E37_79B9_7F4A_7C15
        var z = seed
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
