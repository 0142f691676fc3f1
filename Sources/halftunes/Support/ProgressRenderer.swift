import Foundation
import HalfTunesKit
import ITunesSearch

/// Shows downloads as they go: redrawn bars on a terminal, plain lines otherwise, NDJSON with --json.
final class ProgressRenderer {
    enum Mode { case terminal, plain, json }

    private struct Line {
        var title: String
        var text: String
        var lastPlainStep = -1
        var samples: [(time: ContinuousClock.Instant, bytes: Int64)] = []
    }

    private let mode: Mode
    private var order: [Int] = []
    private var lines: [Int: Line] = [:]
    private var drawn = 0
    private var lastDraw = ContinuousClock.now - .seconds(1)

    init(mode: Mode) { self.mode = mode }

    /// Adds a track to the display.
    func add(_ document: DownloadDocument) {
        let id = document.id
        let status = document.status
        if lines[id] == nil { order.append(id) }
        lines[id] = Line(title: DisplayWidth.printable(document.name), text: describe(status))
        switch mode {
        case .json:
            emit(WireEvent(.stateChanged(trackID: id, state: document.state)))
        case .plain:
            Terminal.write("\(lines[id]!.title) — \(lines[id]!.text)\n")
        case .terminal:
            redraw(force: true)
        }
    }

    /// Shows an event.
    func show(_ event: DownloadEvent) {
        let id = event.trackID
        guard var line = lines[id] else { return }
        switch event {
        case .progress(_, let received, let expected):
            let now = ContinuousClock.now
            line.samples.append((now, received))
            line.samples.removeAll { now - $0.time > .seconds(3) }
            var text = ProgressText.progress(received: received, expected: expected)
            if let first = line.samples.first, now - first.time > .milliseconds(300) {
                let seconds = Double((now - first.time).components.attoseconds) / 1e18 + Double((now - first.time).components.seconds)
                text += ", " + ProgressText.rate(bytesPerSecond: Double(received - first.bytes) / seconds)
            }
            line.text = text
            switch mode {
            case .json:
                emit(WireEvent(event))
            case .plain:
                if let expected, expected > 0 {
                    let step = Int(received * 4 / expected)
                    if step > line.lastPlainStep, step < 4 {
                        line.lastPlainStep = step
                        Terminal.write("\(line.title) — \(ProgressText.progress(received: received, expected: expected))\n")
                    }
                }
            case .terminal:
                break
            }
        case .stateChanged(_, let state):
            if state == .paused { line.text = "Paused" }
            if state == .queued { line.text = "Queued" }
            if mode == .json { emit(WireEvent(event)) }
        case .completed(_, let file):
            line.text = "done → \(file.path)"
            if mode == .json { emit(WireEvent(event)) }
            if mode == .plain { Terminal.write("\(line.title) — done → \(file.path)\n") }
        case .failed(_, let reason):
            line.text = "failed: \(reason)"
            if mode == .json { emit(WireEvent(event)) }
            if mode == .plain { Terminal.write("\(line.title) — failed: \(reason)\n") }
        case .removed:
            line.text = "cancelled"
            if mode == .json { emit(WireEvent(event)) }
        }
        lines[id] = line
        if mode == .terminal { redraw(force: event.isFinal) }
    }

    /// Reports a line of its own (a pause on Ctrl-C, say).
    func note(_ text: String) {
        if mode == .terminal { redraw(force: true) }
        // Standard output stays pure NDJSON of download events; a note is for the person.
        if mode == .json { Terminal.warn(text) } else { Terminal.write(text + "\n") }
    }

    private func redraw(force: Bool) {
        let now = ContinuousClock.now
        guard force || now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = now
        var out = drawn > 0 ? "\u{1B}[\(drawn)F" : ""
        let width = Terminal.columns ?? 80
        for id in order {
            guard let line = lines[id] else { continue }
            out += "\u{1B}[2K" + DisplayWidth.truncate("\(line.title) — \(line.text)", to: width - 1) + "\n"
        }
        drawn = order.count
        Terminal.write(out)
    }

    private func describe(_ status: DownloadStatus) -> String {
        switch status.state {
        case .downloaded: "already in the library → \(status.file?.path ?? "")"
        case .paused: "Paused"
        case .queued: "Queued"
        case .failed: "failed: \(status.failure ?? "unknown error")"
        case .downloading: ProgressText.progress(received: status.receivedBytes, expected: status.expectedBytes)
        case .notDownloaded: "not downloaded"
        }
    }

    /// One NDJSON line: the same event schema the API's Server-Sent Events carry.
    private func emit(_ event: WireEvent) {
        guard let line = try? WireEncoding.line(event) else { return }
        Terminal.write(line + "\n")
    }
}

extension DownloadEvent {
    var isFinal: Bool {
        switch self {
        case .completed, .failed, .removed: true
        case .progress, .stateChanged: false
        }
    }
}
