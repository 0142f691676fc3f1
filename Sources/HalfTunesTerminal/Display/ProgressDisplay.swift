import Foundation
import HalfTunesKit
import ITunesSearch

/// Shows downloads as they go, as a command line does: on a terminal, one line per track redrawn
/// in place (title, bar, "42.0% of 1.1 MB", speed, time left; see ``ProgressLine``), queued
/// tracks counted on one line and rows past the window's height folded into it, a total line
/// when there are several, and one summary line left by each finished track; plain lines
/// otherwise; NDJSON of ``WireEvent`` with `--json`. It writes through the closures it is given,
/// so it needs no terminal of its own (and tests need none).
public final class ProgressDisplay {
    /// How to show progress.
    public enum Mode: Sendable { case terminal, plain, json }

    private struct Line {
        var title: String
        var text: String
        /// While bytes arrive: what the terminal's bar shows.
        var figures: ProgressLine.Figures?
        /// What its row would show (see ``ProgressLayout``).
        var kind: ProgressLayout.Kind
        /// A finished one's text in its parts: the words, the file they end with, a note after it
        /// (``SummaryLine``).
        var file: (words: String, path: String, note: String)?
        var finished = false
        /// The failure already told of it (its status said so when added): the events that led
        /// to it may arrive after the status, and that failure's own is not told twice.
        var toldFailure: String?
        var lastPlainStep = -1
        var samples: [(time: ContinuousClock.Instant, bytes: Int64)] = []
    }

    private let mode: Mode
    private let color: Bool
    private let columns: () -> Int?
    private let rows: () -> Int?
    private let write: (String) -> Void
    private let warn: (String) -> Void
    /// The ids of the lines, in the order added (with ids of finished lines, dropped now and then).
    private var order: [Int] = []
    /// The tracks not finished yet: a finished track's line is dropped, its figures kept in
    /// ``finished``, so the display holds the tracks under way, however many a batch has.
    private var lines: [Int: Line] = [:]
    /// The finished tracks' count, how many of them had figures (were fetched, not found in the
    /// library), and those ones' bytes (for the total line).
    private var finished = (count: 0, measured: 0, received: Int64(0), expected: Int64(0), sizeUnknown: false)
    /// The tracks the batch will add in all (see ``expect(_:)``).
    private var expected = 0
    /// The tracks the display counts: the batch's, or those added and finished when more.
    private var trackCount: Int { max(expected, lines.count + finished.count) }
    private var drawn = 0
    /// Lines to print once, above the redrawn ones (finished tracks, notes).
    private var summaries: [SummaryLine] = []
    /// Failures a terminal's drawing has not yet told on standard error.
    private var untold: [String] = []
    private var lastDraw = ContinuousClock.now - .seconds(1)
    /// The cap on all downloads together, bytes a second, shown in the total line.
    public var cap: Int?

    /// A display.
    ///
    /// - Parameters:
    ///   - color: Whether the terminal's bars may be coloured (not with `NO_COLOR`).
    ///   - columns: The terminal's width, when it has one (asked at every redraw, so the display
    ///     follows the window's size).
    ///   - rows: The terminal's height, when known (asked at every redraw; 24 when not): the rows
    ///     redrawn in place never take more.
    ///   - write: Writes to standard output.
    ///   - warn: Writes a line for the person (standard error).
    public init(
        mode: Mode, color: Bool = false, columns: @escaping () -> Int?, rows: @escaping () -> Int? = { nil },
        write: @escaping (String) -> Void, warn: @escaping (String) -> Void
    ) {
        self.mode = mode
        self.color = color
        self.columns = columns
        self.rows = rows
        self.write = write
        self.warn = warn
    }

    /// Says how many tracks the batch has in all, when they are added a slice at a time: the
    /// total line counts them all from the start.
    public func expect(_ count: Int) {
        expected = count
    }

    /// Adds a track to the display.
    public func add(_ document: DownloadDocument) {
        let id = document.id
        let status = document.status
        if lines[id] == nil { order.append(id) }
        let line = Line(
            title: DisplayWidth.printable(document.name), text: describe(status), kind: Self.kind(of: status),
            file: document.state == .downloaded ? status.file.map { ("already in the library → ", $0.path, "") } : nil,
            finished: document.state == .downloaded || document.state == .failed)
        lines[id] = line
        switch mode {
        case .json:
            emit(WireEvent(.stateChanged(trackID: id, state: document.state)))
        case .plain:
            write("\(line.title) — \(line.text)\n")
        case .terminal:
            if line.finished { summaries.append(summary(line)) }
        }
        // One that failed before it was followed (at once: a refused URL) tells its reason on
        // standard error too, as a failure event would.
        if document.state == .failed {
            lines[id]?.toldFailure = line.text
            if mode == .terminal { untold.append("\(line.title) — \(line.text)") } else { warn("\(line.title) — \(line.text)") }
        }
        // A failed one stays until its next event: a download started again goes on from there.
        if document.state == .downloaded { retire(id, line) }
        if mode == .terminal { redraw(force: true) }
    }

    /// Shows an event.
    public func show(_ event: DownloadEvent) {
        guard let id = event.trackID, var line = lines[id] else { return }
        let told = line.toldFailure
        switch event {
        case .progress(_, let received, let expected):
            let now = ContinuousClock.now
            line.samples.append((now, received))
            line.samples.removeAll { now - $0.time > .seconds(3) }
            var text = ProgressText.progress(received: received, expected: expected)
            var rate: Double?
            if let first = line.samples.first, now - first.time > .milliseconds(300) {
                rate = Double(received - first.bytes) / (now - first.time).inSeconds
                text += ", " + ProgressText.rate(bytesPerSecond: rate!)
            }
            line.text = text
            line.kind = .downloading
            line.figures = ProgressLine.Figures(received: received, expected: expected, bytesPerSecond: rate)
            switch mode {
            case .json:
                emit(WireEvent(event))
            case .plain:
                if let expected, expected > 0 {
                    let step = Int(received * 4 / expected)
                    if step > line.lastPlainStep, step < 4 {
                        line.lastPlainStep = step
                        write("\(line.title) — \(ProgressText.progress(received: received, expected: expected))\n")
                    }
                }
            case .terminal:
                break
            }
        case .stateChanged(_, let state):
            // Piped, a pause and the resume after it get a line each (on a terminal the row says
            // so): a pause from elsewhere (the page, another command) explains the wait.
            let wasPaused = line.kind == .paused
            if mode == .plain, state == .paused, !wasPaused { write("\(line.title) — Paused\n") }
            if mode == .plain, wasPaused, state == .queued || state == .downloading { write("\(line.title) — Resumed\n") }
            if state == .paused { (line.text, line.figures) = ("Paused", nil) }
            if state == .queued { (line.text, line.figures) = ("Queued", nil) }
            // Taking a slot is not yet downloading: until its first bytes (it may wait for a
            // connection) a track still counts with the queued ones.
            if state == .downloading, line.figures == nil {
                (line.text, line.kind) = ("Starting", .queued)
            } else {
                line.kind = Self.kind(of: state)
            }
            if mode == .json { emit(WireEvent(event)) }
        case .completed(_, let file, let warning):
            let note = warning.map { " (\($0))" } ?? ""
            let path = file.path  // a file URL's path is decoded on each read: once here
            (line.text, line.file) = ("done → \(path)\(note)", ("done → ", path, note))
            if mode == .json { emit(WireEvent(event)) }
            if mode == .plain { write("\(line.title) — \(line.text)\n") }
        case .retrying(_, let reason, let delay):
            // The row says it in words, as a paused one does, until the next bytes bring the bar
            // back; a row of its own even before any bytes (not among the queued): the download
            // is on, waiting to try again.
            (line.text, line.figures, line.kind) = ("Retrying in \(ProgressText.wait(delay)): \(reason)", nil, .downloading)
            if mode == .json { emit(WireEvent(event)) }
            if mode == .plain { write("\(line.title) — \(line.text)\n") }
        case .failed(_, let reason):
            let reason = DisplayWidth.printable(reason)
            line.text = "failed: \(reason)"
            if mode == .json { emit(WireEvent(event)) }
            if told == line.text {
                retire(id, line)
                if mode == .terminal { redraw(force: true) }
                return
            }
            if mode == .plain { write("\(line.title) — failed: \(reason)\n") }
            // The reason is also one line on standard error, where scripts and people look for
            // errors; a terminal's drawing holds it until the drawing ends.
            if mode == .terminal {
                untold.append("\(line.title) — failed: \(reason)")
            } else {
                warn("\(line.title) — failed: \(reason)")
            }
        case .removed:
            line.text = "cancelled"
            if mode == .json { emit(WireEvent(event)) }
        case .fellBehind:
            return
        }
        if event.isFinal, !line.finished {
            line.finished = true
            if mode == .terminal { summaries.append(summary(line)) }
        }
        if event.isFinal { retire(id, line) } else { lines[id] = line }
        // A wait to retry is drawn at once: the row may stay so for seconds, with no event after it.
        if mode == .terminal { redraw(force: event.isFinal || event.isRetry) }
    }

    /// Drops a finished track's line, keeping its figures for the total.
    private func retire(_ id: Int, _ line: Line) {
        lines[id] = nil
        finished.count += 1
        if let figures = line.figures {
            finished.measured += 1
            finished.received += figures.received
            if let size = figures.expected { finished.expected += size } else { finished.sizeUnknown = true }
        }
        // The order keeps finished ids until they are most of it.
        if order.count > 64, order.count > 2 * lines.count { order.removeAll { lines[$0] == nil } }
    }

    /// Reports a line of its own (a pause on Ctrl-C, say).
    public func note(_ text: String) {
        switch mode {
        case .terminal:
            summaries.append(SummaryLine(head: text))
            redraw(force: true)
        case .plain: write(text + "\n")
        // Standard output stays pure NDJSON of download events; a note is for the person.
        case .json: warn(text)
        }
    }

    /// Ends the display with a line below it: on a terminal the tracks are drawn once more as they
    /// stand (paused ones without speed or time left), and the line goes after them.
    public func end(note text: String) {
        switch mode {
        case .terminal:
            redraw(force: true)
            drawn = 0
            write(ProgressLine.status(text, width: columns() ?? 80) + "\n")
        case .plain: write(text + "\n")
        case .json: warn(text)
        }
    }

    /// Tells on standard error the failures a terminal's drawing held back (call once it ends).
    public func tellFailures() {
        for line in untold { warn(line) }
        untold.removeAll()
    }

    /// Draws the summaries not yet shown, then the lines of tracks still going and the total, over
    /// what was drawn before (at most ten times a second, unless forced).
    private func redraw(force: Bool) {
        let now = ContinuousClock.now
        guard force || now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = now
        let width = columns() ?? 80
        var out = drawn > 0 ? "\u{1B}[\(drawn)F" : ""
        for summary in summaries { out += "\u{1B}[2K" + summary.rendered(width: width) + "\n" }
        summaries.removeAll()
        let going = order.compactMap { lines[$0] }.filter { !$0.finished }
        let withTotal = trackCount > 1 && !going.isEmpty
        let plan = ProgressLayout.plan(going.map(\.kind), height: self.rows() ?? 24, withTotal: withTotal)
        var rows = plan.shown.map { index in
            let line = going[index]
            return line.figures.map { ProgressLine.progress(title: line.title, $0, width: width, color: color) }
                ?? ProgressLine.status("\(line.title) — \(line.text)", width: width)
        }
        if let rest = plan.rest { rows.append(ProgressLine.status(rest, width: width)) }
        if withTotal { rows.append(total(width: width)) }
        for row in rows { out += "\u{1B}[2K" + row + "\n" }
        drawn = rows.count
        write(out + "\u{1B}[J")  // and nothing left below from a taller or wider drawing
    }

    /// "Total (2 of 5 done)" with a bar over every track's bytes, when all their sizes are known.
    /// While some tracks have not started (queued, or in a slice not added yet) the size is an
    /// estimate, each of them taken as large as the average of those known ("2.7% of ~37.7 MB"):
    /// the total of the started ones alone would show a batch of 300 nearly done, seconds left.
    private func total(width: Int) -> String {
        let done = finished.count + lines.values.filter(\.finished).count
        let title =
            "Total (\(done) of \(trackCount) done\(cap.map { ", capped at " + ProgressText.rate(bytesPerSecond: Double($0)) } ?? ""))"
        // Over the tracks that have started; a size the server did not give makes the total unknown.
        let figures = lines.values.compactMap(\.figures)
        let size = figures.reduce(finished.expected) { $0 + ($1.expected ?? 0) }
        guard size > 0, !finished.sizeUnknown, figures.allSatisfy({ $0.expected != nil }) else {
            return ProgressLine.status(title, width: width)
        }
        let received = figures.reduce(finished.received) { $0 + $1.received }
        let rate = figures.compactMap(\.bytesPerSecond).reduce(0, +)
        // The tracks this run fetches: not those found in the library, nor those failed at once.
        let fetched =
            trackCount - (finished.count - finished.measured) - lines.values.count { $0.finished && $0.figures == nil }
        let started = finished.measured + figures.count
        let notStarted = max(0, fetched - started)
        let expected = size + Int64(notStarted) * size / Int64(max(1, started))
        return ProgressLine.progress(
            title: title,
            ProgressLine.Figures(
                received: received, expected: expected, bytesPerSecond: rate > 0 ? rate : nil, isEstimate: notStarted > 0),
            width: width, color: color)
    }

    /// The line a finished track leaves: "Title — done → path".
    private func summary(_ line: Line) -> SummaryLine {
        guard let file = line.file else { return SummaryLine(head: "\(line.title) — \(line.text)") }
        return SummaryLine(head: "\(line.title) — \(file.words)", path: file.path, tail: file.note)
    }

    private func describe(_ status: DownloadStatus) -> String {
        switch status.state {
        case .downloaded: "already in the library → \(status.file?.path ?? "")"
        case .paused: "Paused"
        case .queued: "Queued"
        case .failed: "failed: \(DisplayWidth.printable(status.failure ?? "unknown error"))"
        case .downloading where Self.isStarting(status): "Starting"
        case .downloading: ProgressText.progress(received: status.receivedBytes, expected: status.expectedBytes)
        case .notDownloaded: "not downloaded"
        }
    }

    /// One NDJSON line: the same event schema the API's Server-Sent Events carry.
    private func emit(_ event: WireEvent) {
        guard let line = try? WireEncoding.line(event) else { return }
        write(line + "\n")
    }
}
