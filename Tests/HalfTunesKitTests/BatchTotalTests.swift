import Foundation
import HalfTunesKit
import HalfTunesTerminal
import ITunesSearch
import Testing

/// The total line a batch draws on a terminal, read from what the display writes.
@Suite("The terminal display's total for a batch (pure)")
struct BatchTotalTests {
    /// A display on a terminal of 100 × 40 whose writes are kept.
    final class Screen {
        var writes: [String] = []
        lazy var display = ProgressDisplay(
            mode: .terminal, columns: { 100 }, rows: { 40 }, write: { self.writes.append($0) }, warn: { _ in })

        /// The total row of the last drawing, its escape sequences taken out.
        func totalRow() -> String? {
            display.note("look")  // a redraw now (progress alone redraws at most ten times a second)
            let plain = (writes.last ?? "").replacingOccurrences(
                of: "\u{1B}\\[[0-9]*[A-Za-z]", with: "", options: .regularExpression)
            return plain.components(separatedBy: "\n").last { $0.hasPrefix("Total (") }
        }
    }

    private func document(_ id: Int, _ state: DownloadState) -> DownloadDocument {
        DownloadDocument(
            DownloadStatus(
                track: Track(id: id, name: "Track \(id)", artist: "Artist"), state: state, receivedBytes: 0,
                expectedBytes: nil, failure: nil, file: nil))
    }

    @Test("tracks still queued: the size an estimate, each taken as large as the average known one")
    func queuedEstimate() throws {
        let screen = Screen()
        screen.display.expect(5)
        for id in 1...5 { screen.display.add(document(id, .queued)) }
        screen.display.show(.progress(trackID: 1, received: 500_000, expected: 1_000_000))
        screen.display.show(.progress(trackID: 2, received: 500_000, expected: 3_000_000))
        // 4 MB known over 2 tracks, 3 more of 2 MB: 1 MB of ~10 MB.
        let total = try #require(screen.totalRow())
        #expect(total.hasPrefix("Total (0 of 5 done)"))
        #expect(total.contains("10.0% of ~10.0 MB"), "\(total)")

        // Every track started: the size is known, no longer an estimate.
        for id in 3...5 { screen.display.show(.progress(trackID: id, received: 0, expected: 1_000_000)) }
        let known = try #require(screen.totalRow())
        #expect(known.contains("14.3% of 7.0 MB"), "\(known)")
    }

    @Test("tracks found in the library and tracks of later slices: only those to fetch are estimated")
    func libraryAndSlices() throws {
        let screen = Screen()
        screen.display.expect(6)  // 6 in the batch, 3 added in this slice
        screen.display.add(document(1, .downloaded))
        screen.display.add(document(2, .queued))
        screen.display.add(document(3, .queued))
        screen.display.show(.progress(trackID: 2, received: 250_000, expected: 1_000_000))
        // 1 in the library; of the 5 to fetch, 1 started (1 MB): 0.25 MB of ~5 MB.
        let total = try #require(screen.totalRow())
        #expect(total.hasPrefix("Total (1 of 6 done)"))
        #expect(total.contains("5.0% of ~5.0 MB"), "\(total)")
    }
}
