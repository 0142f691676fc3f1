import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `halftunes download` on a real terminal: tmux (Debian's) runs it in a pane of a given width, and
/// what tmux shows is what is checked — its own view of wrapped lines, not our width arithmetic.
@Suite(
    "The terminal display", .serialized, .timeLimit(.minutes(3)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "needs tmux (apt-get install tmux)"))
struct TerminalDisplayTests {
    /// A tmux server of the test's own, with one pane running `command`.
    struct Pane {
        let socket: String
        let tmux = URL(fileURLWithPath: "/usr/bin/tmux")

        init(columns: Int, height: Int = 20, command: String) async throws {
            socket = "halftunes-test-\(getpid())-\(columns)"
            // The tmux server outlives the command that starts it and keeps every descriptor it was
            // given: it gets none but /dev/null, or the test would wait for it to close them.
            let started = try await ChildProcess.run(
                URL(fileURLWithPath: "/bin/bash"),
                [
                    "-c",
                    #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; "$@" </dev/null >/dev/null 2>&1 &"#,
                    "bash", tmux.path, "-L", socket, "-f", "/dev/null", "new-session",
                    "-d", "-x", "\(columns)", "-y", "\(height)", command,
                ])
            guard started.status == 0 else { throw PaneFailure(message: started.stderr) }
            let deadline = ContinuousClock.now + .seconds(10)
            while try await ChildProcess.run(tmux, ["-L", socket, "has-session"]).status != 0 {
                guard ContinuousClock.now < deadline else { throw PaneFailure(message: "tmux did not start") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        /// The visible screen: rows as tmux shows them, and the same with wrapped rows joined.
        func screen() async throws -> (rows: [String], joined: [String]) {
            let rows = try await ChildProcess.run(tmux, ["-L", socket, "capture-pane", "-p"]).stdout
            let joined = try await ChildProcess.run(tmux, ["-L", socket, "capture-pane", "-p", "-J"]).stdout
            func lines(_ text: String) -> [String] {
                var lines = text.components(separatedBy: "\n")
                while lines.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { lines.removeLast() }
                return lines
            }
            return (lines(rows), lines(joined))
        }

        /// Everything the pane showed: the rows scrolled off the top (its history), then the screen,
        /// wrapped rows joined.
        func history() async throws -> [String] {
            try await ChildProcess.run(tmux, ["-L", socket, "capture-pane", "-p", "-J", "-S", "-"]).stdout
                .components(separatedBy: "\n")
        }

        /// Looks at the screen until `match` holds (or 60 s pass: throttled downloads on two busy
        /// cores — a build beside the tests — once took over 20 s to finish).
        func waitFor(_ match: ([String]) -> Bool) async throws -> (rows: [String], joined: [String]) {
            let deadline = ContinuousClock.now + .seconds(60)
            while true {
                let screen = try await screen()
                if match(screen.rows) || ContinuousClock.now > deadline { return screen }
                try await Task.sleep(for: .milliseconds(50))
            }
        }

        func close() async { _ = try? await ChildProcess.run(tmux, ["-L", socket, "kill-server"]) }
    }

    struct PaneFailure: Error { let message: String }

    static let titles = ["Love in the Harbour", "ラブソング", "Tidewater"]

    /// `halftunes download IDS` (previews at 200 KB/s) in a pane `columns` wide, which stays open
    /// after it ends, showing `EXIT=status`.
    ///
    /// The rate sets how long the bars stay on the screen to be looked at (some 6 s a preview): at
    /// 400 KB/s, with the whole suite and a build beside it, a look at the pane (two `tmux` runs)
    /// could take long enough to miss the 3 s in which all three bars and their time left showed.
    private func withDownload(
        _ ids: [String], columns: Int, height: Int = 20, bytesPerSecond: Int = 200_000, environment: String = "",
        _ body: (Pane) async throws -> Void
    ) async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                catalog.setFaults(PreviewFaults(bytesPerSecond: bytesPerSecond))
                let command =
                    "env \(environment) HALFTUNES_HOME='\(home.path)' HALFTUNES_CATALOG='\(url.absoluteString)'"
                    + " '\(try BuiltProducts.halftunes.path)' download \(ids.joined(separator: " ")); echo EXIT=$?; sleep 60"
                let pane = try await Pane(columns: columns, height: height, command: command)
                do { try await body(pane) } catch {
                    await pane.close()
                    throw error
                }
                await pane.close()
            }
        }
    }

    @Test(
        "three downloads: a bar each redrawn in place and a total, no wrapped line; then one summary line each",
        arguments: [80, 40])
    func download(columns: Int) async throws {
        try await withDownload(["1001", "1019", "1003"], columns: columns) { pane in
            let isBar = { (row: String) in row.contains("[") && row.contains("] ") && row.contains("% of") }
            // All three under way (the DemoCatalog serves them side by side): four bars.
            // At 80 columns, with the speed and the time left once they are known.
            let running = try await pane.waitFor { rows in
                rows.filter(isBar).count == 4 && (columns < 80 || rows.filter { $0.hasSuffix(" left") }.count == 4)
            }
            let bars = running.rows.filter(isBar)
            #expect(bars.count == 4, "three tracks and the total: \(running.rows)")
            #expect(running.rows.contains { $0.hasPrefix("Total") })
            #expect(running.rows.count == running.joined.count, "a line wrapped at \(columns) columns: \(running.rows)")
            for title in Self.titles.dropFirst() {
                #expect(running.rows.filter { $0.contains(title) }.count == 1, "\(title) drawn once, in place")
            }

            let finished = try await pane.waitFor { rows in rows.contains { $0.hasPrefix("EXIT=") } }
            #expect(finished.rows.contains("EXIT=0"))
            let summaries = finished.rows.filter { $0.contains("— done →") }
            #expect(summaries.count == 3, "\(finished.rows)")
            #expect(!finished.rows.contains { $0.contains("% of") || $0.hasPrefix("Total") })
            #expect(finished.rows.count == finished.joined.count, "a line wrapped: \(finished.rows)")
            let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("test-artifacts")
            try? FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
            try? (running.rows.joined(separator: "\n") + "\n…\n" + finished.rows.joined(separator: "\n") + "\n")
                .write(to: artifacts.appendingPathComponent("terminal-\(columns).txt"), atomically: true, encoding: .utf8)
        }
    }

    @Test("COLUMNS, when set, is the width the display fits (a pane of 80 drawn as 40)")
    func columnsVariable() async throws {
        try await withDownload(["1001"], columns: 81, environment: "COLUMNS=40") { pane in
            let running = try await pane.waitFor { rows in rows.contains { $0.contains("% of") } }
            // The 40-column layout: the title cut, no speed; nothing past column 39.
            #expect(running.rows.contains { $0.hasPrefix("Love in the") && $0.contains("…") && $0.contains("% of") })
            #expect(!running.rows.contains { $0.contains("/s") })
            #expect(running.rows.allSatisfy { $0.count <= 39 }, "\(running.rows)")
            let finished = try await pane.waitFor { rows in rows.contains { $0.hasPrefix("EXIT=") } }
            #expect(finished.rows.first { $0.contains("— done →") }?.count == 39)
        }
    }

    @Test(
        "a batch taller than the window: bars of the downloads, the queued ones on one line, the total; nothing left behind"
    )
    func tallBatch() async throws {
        // 24 previews (1010 has none) in a window of 12 rows: a row each would not fit.
        let ids = (1001...1025).filter { $0 != 1010 }.map(String.init)
        try await withDownload(ids, columns: 80, height: 12, bytesPerSecond: 1_000_000) { pane in
            let isBar = { (row: String) in row.contains("[") && row.contains("] ") && row.contains("% of") }
            let running = try await pane.waitFor { rows in
                rows.filter(isBar).count >= 3 && rows.contains { $0.hasPrefix("… and ") && $0.hasSuffix(" queued") }
            }
            let bars = running.rows.filter(isBar)
            let total = try #require(bars.last { $0.hasPrefix("Total (") }, "\(running.rows)")
            let queued = try #require(running.rows.first { $0.hasPrefix("… and ") }, "\(running.rows)")
            // "Total (3 of 24 done)" and "… and 17 queued": every track counted once, done, drawn or queued.
            let done = try #require(Int(total.dropFirst("Total (".count).prefix { $0.isNumber }))
            let waiting = try #require(Int(queued.dropFirst("… and ".count).prefix { $0.isNumber }))
            #expect(done + (bars.count - 1) + waiting == ids.count, "\(running.rows)")
            #expect(!running.rows.contains { $0.hasSuffix("— Queued") }, "\(running.rows)")
            // With tracks still queued the batch's size is an estimate, not the started ones' sum.
            #expect(total.contains(" of ~"), "\(total)")

            let finished = try await pane.waitFor { rows in rows.contains { $0.hasPrefix("EXIT=") } }
            #expect(finished.rows.contains("EXIT=0"))
            // Redrawn in place: what scrolled off the top is the finished tracks' lines, each once.
            let history = try await pane.history()
            #expect(history.filter { $0.contains("— done →") }.count == ids.count, "\(history)")
            #expect(
                !history.contains {
                    $0.contains("% of") || $0.hasPrefix("Total") || $0.hasPrefix("… and ") || $0.hasSuffix("— Queued")
                }, "\(history)")
        }
    }

    @Test("LINES, when set, is the height the drawing fits (a window of 20 drawn as 5)")
    func linesVariable() async throws {
        let ids = (1001...1025).filter { $0 != 1010 }.map(String.init)
        try await withDownload(ids, columns: 80, bytesPerSecond: 1_000_000, environment: "LINES=5") { pane in
            let isBar = { (row: String) in row.contains("[") && row.contains("] ") && row.contains("% of") }
            let running = try await pane.waitFor { rows in
                rows.filter(isBar).count == 3 && rows.contains { $0.hasPrefix("… and ") && $0.contains(" more downloading") }
            }
            // 4 rows: two downloads' bars, the line for the others, the total (above them, the
            // lines of tracks done).
            let drawing = running.rows.filter { !$0.contains("— done →") }
            #expect(drawing.count == 4, "\(running.rows)")
            #expect(drawing.last?.hasPrefix("Total (") == true, "\(running.rows)")
            #expect(drawing.contains { $0.hasPrefix("… and ") && $0.hasSuffix(" queued") }, "\(running.rows)")
            let finished = try await pane.waitFor { rows in rows.contains { $0.hasPrefix("EXIT=") } }
            #expect(finished.rows.contains("EXIT=0"))
        }
    }
}
