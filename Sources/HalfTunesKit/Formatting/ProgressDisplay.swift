import Foundation
import ITunesSearch

/// Shows downloads as they go, as a command line does: one redrawn line per track on a terminal,
/// plain lines otherwise, NDJSON of ``WireEvent`` with `--json`. It writes through the closures it
/// is given, so it needs no terminal of its own (and tests need none).
public final class ProgressDisplay {
    /// How to show progress.
    public enum Mode: Sendable { case terminal, plain, json }

    private struct Line {
        var title: String
        var text: String
        var lastPlainStep = -1
        var samples: [(time: ContinuousClock.Instant, bytes: Int64)] = []
    }

    private let mode: Mode
    private let columns: () -> Int?
    private let write: (String) -> Void
    private let warn: (String) -> Void
    private var order: [Int] = []
    private var lines: [Int: Line] = [:]
    private var drawn = 0
    private var lastDraw = ContinuousClock.now - .seconds(1)

    /// A display.
    ///
    /// - Parameters:
    ///   - columns: The terminal's width, when it has one.
    ///   - write: Writes to standard output.
    ///   - warn: Writes a line for the person (standard error).
    public init(
        mode: Mode, columns: @escaping () -> Int?, write: @escaping (String) -> Void, warn: @escaping (String) -> Void
    ) {
        self.mode = mode
        self.columns = columns
        self.write = write
        self.warn = warn
    }

    /// Adds a track to the display.
    public func add(_ document: DownloadDocument) {
        let id = document.id
        let status = document.status
        if lines[id] == nil { order.append(id) }
        lines[id] = Line(title: DisplayWidth.printable(document.name), text: describe(status))
        switch mode {
        case .json:
            emit(WireEvent(.stateChanged(trackID: id, state: document.state)))
        case .plain:
            write("\(lines[id]!.title) — \(lines[id]!.text)\n")
        case .terminal:
            redraw(force: true)
        }
    }

    /// Shows an event.
    public func show(_ event: DownloadEvent) {
        guard let id = event.trackID, var line = lines[id] else { return }
        switch event {
        case .progress(_, let received, let expected):
            let now = ContinuousClock.now
            line.samples.append((now, received))
            line.samples.removeAll { now - $0.time > .seconds(3) }
            var text = ProgressText.progress(received: received, expected: expected)
            if let first = line.samples.first, now - first.time > .milliseconds(300) {
                let seconds =
                    Double((now - first.time).components.attoseconds) / 1e18 + Double((now - first.time).components.seconds)
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
                        write("\(line.title) — \(ProgressText.progress(received: received, expected: expected))\n")
                    }
                }
            case .terminal:
                break
            }
        case .stateChanged(_, let state):
            if state == .paused { line.text = "Paused" }
            if state == .queued { line.text = "Queued" }
            if mode == .json { emit(WireEvent(event)) }
        case .completed(_, let file, let warning):
            let note = warning.map { " (\($0))" } ?? ""
            line.text = "done → \(file.path)\(note)"
            if mode == .json { emit(WireEvent(event)) }
            if mode == .plain { write("\(line.title) — done → \(file.path)\(note)\n") }
        case .failed(_, let reason):
            line.text = "failed: \(reason)"
            if mode == .json { emit(WireEvent(event)) }
            if mode == .plain { write("\(line.title) — failed: \(reason)\n") }
        case .removed:
            line.text = "cancelled"
            if mode == .json { emit(WireEvent(event)) }
        case .fellBehind:
            return
        }
        lines[id] = line
        if mode == .terminal { redraw(force: event.isFinal) }
    }

    /// Reports a line of its own (a pause on Ctrl-C, say).
    public func note(_ text: String) {
        if mode == .terminal { redraw(force: true) }
        // Standard output stays pure NDJSON of download events; a note is for the person.
        if mode == .json { warn(text) } else { write(text + "\n") }
    }

    private func redraw(force: Bool) {
        let now = ContinuousClock.now
        guard force || now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = now
        var out = drawn > 0 ? "\u{1B}[\(drawn)F" : ""
        let width = columns() ?? 80
        for id in order {
            guard let line = lines[id] else { continue }
            out += "\u{1B}[2K" + DisplayWidth.truncate("\(line.title) — \(line.text)", to: width - 1) + "\n"
        }
        drawn = order.count
        write(out)
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
        write(line + "\n")
    }
}

extension DownloadEvent {
    /// Whether the download will not move again by itself.
    public var isFinal: Bool {
        switch self {
        case .completed, .failed, .removed: true
        case .progress, .stateChanged, .fellBehind: false
        }
    }
}
