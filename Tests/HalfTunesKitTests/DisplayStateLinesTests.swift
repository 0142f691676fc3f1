import Foundation
import HalfTunesKit
import HalfTunesTerminal
import ITunesSearch
import Testing

/// What the display says of a download's start and of its pauses: a track that has taken a slot
/// but received nothing yet (as `download` first lists it), and one paused and resumed from
/// elsewhere while `download` watches it.
@Suite("The display's lines for a download's start and pauses (pure)")
struct DisplayStateLinesTests {
    private func document(_ id: Int, _ state: DownloadState, received: Int64 = 0, expected: Int64? = nil) -> DownloadDocument {
        DownloadDocument(
            DownloadStatus(
                track: Track(id: id, name: "Track \(id)", artist: "Artist"), state: state, receivedBytes: received,
                expectedBytes: expected, failure: nil, file: nil))
    }

    /// A display on a terminal of 100 × 40 and its last drawing, the escapes taken out.
    private final class Terminal {
        private var writes: [String] = []
        lazy var display = ProgressDisplay(
            mode: .terminal, columns: { 100 }, rows: { 40 }, write: { [unowned self] in writes.append($0) }, warn: { _ in })
        var drawing: String {
            (writes.last ?? "").replacingOccurrences(of: "\u{1B}\\[[0-9]*[A-Za-z]", with: "", options: .regularExpression)
        }
    }

    @Test("piped: 'Starting', not '0 bytes'; a download with bytes shows them")
    func plainLines() {
        var lines: [String] = []
        let display = ProgressDisplay(mode: .plain, columns: { nil }, write: { lines.append($0) }, warn: { _ in })
        display.add(document(1, .downloading))
        display.add(document(2, .queued))
        display.add(document(3, .downloading, received: 500_000, expected: 1_000_000))
        #expect(lines == ["Track 1 — Starting\n", "Track 2 — Queued\n", "Track 3 — 50.0% of 1.0 MB\n"])
    }

    @Test("on a terminal: counted with the queued tracks, as its state change would count it")
    func terminalRows() throws {
        let terminal = Terminal()
        let display = terminal.display
        display.expect(3)
        display.add(document(1, .downloading))
        display.add(document(2, .downloading))
        display.add(document(3, .queued))
        let rows = terminal.drawing.components(separatedBy: "\n").filter { !$0.isEmpty }
        #expect(rows.contains { $0.contains("… and 3 queued") }, "\(rows)")
        #expect(!rows.contains { $0.contains("0 bytes") }, "\(rows)")
    }

    @Test(
        "a failure its status told when added is not told again by its events arriving after; another failure is; control characters never pass"
    )
    func failureToldOnce() {
        var lines: [String] = []
        var warnings: [String] = []
        let display = ProgressDisplay(
            mode: .plain, columns: { nil }, write: { lines.append($0) }, warn: { warnings.append($0) })
        let reason = "the redirect to \u{1B}]2;owned\u{7}x was not followed (HTTP 302)"
        display.add(
            DownloadDocument(
                DownloadStatus(
                    track: Track(id: 1, name: "Track 1", artist: "Artist"), state: .failed, receivedBytes: 0,
                    expectedBytes: nil, failure: reason, file: nil)))
        display.show(.failed(trackID: 1, reason: reason))
        let told = "Track 1 — failed: \(DisplayWidth.printable(reason))"
        #expect(lines == [told + "\n"])
        #expect(warnings == [told])
        #expect(!told.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(told)")

        display.add(
            DownloadDocument(
                DownloadStatus(
                    track: Track(id: 2, name: "Track 2", artist: "Artist"), state: .failed, receivedBytes: 0,
                    expectedBytes: nil, failure: "not found", file: nil)))
        // The events that led to the failure, arriving after the status that told it.
        display.show(.stateChanged(trackID: 2, state: .queued))
        display.show(.stateChanged(trackID: 2, state: .downloading))
        display.show(.failed(trackID: 2, reason: "not found"))
        #expect(warnings.filter { $0.hasPrefix("Track 2") } == ["Track 2 — failed: not found"])

        // Another failure than the one told is told.
        display.add(
            DownloadDocument(
                DownloadStatus(
                    track: Track(id: 3, name: "Track 3", artist: "Artist"), state: .failed, receivedBytes: 0,
                    expectedBytes: nil, failure: "not found", file: nil)))
        display.show(.failed(trackID: 3, reason: "gone"))
        #expect(warnings.filter { $0.hasPrefix("Track 3") } == ["Track 3 — failed: not found", "Track 3 — failed: gone"])
    }

    @Test("piped: a pause and the resume after it get a line each, once; a pause of a paused track none")
    func plainPauses() {
        var lines: [String] = []
        let display = ProgressDisplay(mode: .plain, columns: { nil }, write: { lines.append($0) }, warn: { _ in })
        display.add(document(1, .downloading, received: 100, expected: 1_000))
        lines.removeAll()
        display.show(.stateChanged(trackID: 1, state: .paused))
        display.show(.stateChanged(trackID: 1, state: .paused))
        display.show(.stateChanged(trackID: 1, state: .queued))
        display.show(.stateChanged(trackID: 1, state: .downloading))
        display.show(.stateChanged(trackID: 1, state: .paused))
        display.show(.stateChanged(trackID: 1, state: .failed))
        #expect(lines == ["Track 1 — Paused\n", "Track 1 — Resumed\n", "Track 1 — Paused\n"])
    }

    @Test("on a terminal: a wait to retry shows on the track's row until its next bytes, even before any")
    func terminalRetry() throws {
        let terminal = Terminal()
        let display = terminal.display
        display.expect(3)
        for id in 1...3 { display.add(document(id, .downloading)) }
        display.show(.progress(trackID: 1, received: 100_000, expected: 1_000_000))
        let rows = { terminal.drawing }
        // A track with bytes has a bar; two that have none yet share the queued line.
        display.show(.retrying(trackID: 1, reason: "the server answered HTTP 503", delay: .seconds(2)))
        #expect(rows().contains("Track 1 — Retrying in 2.0 s: the server answered HTTP 503"), "\(rows())")
        #expect(rows().contains("… and 2 queued"), "\(rows())")
        display.show(.retrying(trackID: 2, reason: "the server answered HTTP 429", delay: .seconds(30)))
        #expect(rows().contains("Track 2 — Retrying in 30 s: the server answered HTTP 429"), "\(rows())")
        display.show(.progress(trackID: 1, received: 200_000, expected: 1_000_000))
        // Progress is drawn at most ten times a second; track 3's end draws at once.
        display.show(.failed(trackID: 3, reason: "gave up"))
        #expect(!rows().contains("Track 1 — Retrying"), "\(rows())")
        #expect(rows().contains("20.0% of 1.0 MB"), "\(rows())")
    }
}
