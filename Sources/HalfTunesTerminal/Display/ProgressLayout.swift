import HalfTunesKit

/// Which of a batch's unfinished tracks get a row of their own on a terminal, and the one line that
/// stands for the rest. The rows redrawn in place must fit the window's height: a drawing taller
/// than the window scrolls its top rows off the screen, where the next redraw cannot reach them, so
/// every redraw would leave a copy of them behind. Queued tracks (two or more) always share one
/// line, so a batch of 300 shows its downloads, "… and 296 queued" and the total, as curl and
/// aria2 show a batch.
enum ProgressLayout {
    /// What a track's row would show, in the order rows are kept when not all fit.
    enum Kind: Int, Comparable, CaseIterable {
        /// Bytes arriving: a bar.
        case downloading
        /// Paused.
        case paused
        /// Any other unfinished state (failed and waiting to start again, not downloaded).
        case other
        /// Waiting for a connection.
        case queued

        static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The rows to draw.
    struct Plan: Equatable {
        /// The indexes (into the kinds given) of the tracks drawn on rows of their own, in order.
        var shown: [Int]
        /// The line standing for the others ("… and 3 more downloading, 296 queued"), if any.
        var rest: String?
    }

    /// Plans the rows of `kinds` (the unfinished tracks in the display's order) for a window of
    /// `height` rows, a total line below them when `withTotal`. The cursor ends on the row below
    /// the drawing, so it takes at most `height - 1` rows.
    static func plan(_ kinds: [Kind], height: Int, withTotal: Bool) -> Plan {
        let room = max(1, height - 1) - (withTotal ? 1 : 0)
        guard room > 0, !kinds.isEmpty else { return Plan(shown: [], rest: nil) }
        let queuedCount = kinds.count { $0 == .queued }
        let collapseQueued = queuedCount >= 2
        let candidates = kinds.indices.filter { !(collapseQueued && kinds[$0] == .queued) }
        let fits = candidates.count + (collapseQueued ? 1 : 0) <= room
        // When not all fit, the rows go to downloads first, then paused ones, in the display's order.
        let kept = Set(fits ? candidates : Array(candidates.sorted { (kinds[$0], $0) < (kinds[$1], $1) }.prefix(room - 1)))
        let others = kinds.indices.filter { !kept.contains($0) }.map { kinds[$0] }
        return Plan(shown: candidates.filter(kept.contains), rest: others.isEmpty ? nil : describe(others, among: kinds))
    }

    /// "… and 3 more downloading, 2 paused, 296 queued": "more" where some of the same kind have
    /// rows of their own.
    private static func describe(_ others: [Kind], among all: [Kind]) -> String {
        var parts: [String] = []
        for kind in Kind.allCases {
            let count = others.count { $0 == kind }
            guard count > 0 else { continue }
            let more = all.count { $0 == kind } > count ? " more" : ""
            switch kind {
            case .downloading: parts.append("\(count)\(more) downloading")
            case .paused: parts.append("\(count)\(more) paused")
            case .queued: parts.append("\(count)\(more) queued")
            case .other: parts.append("\(count)\(more) not started")
            }
        }
        return "… and " + parts.joined(separator: ", ")
    }
}
