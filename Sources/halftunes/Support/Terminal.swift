import Foundation
import Logging

/// What the command line writes, and where.
enum Terminal {
    /// Whether standard output is a terminal (tables fit its width; progress bars redraw).
    static var isInteractive: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Whether output may be coloured: a terminal, no `NO_COLOR` (https://no-color.org), not `TERM=dumb`.
    static var usesColor: Bool {
        let environment = ProcessInfo.processInfo.environment
        return isInteractive && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// The terminal's width in columns, when standard output is one: `COLUMNS` when it is set
    /// (as `ls` and Python's tools read it), else the window's size as it is now (asked at every
    /// redraw, so the display follows a resized window), else 80.
    static var columns: Int? {
        guard isInteractive else { return nil }
        return size("COLUMNS", \.ws_col) ?? 80
    }

    /// The terminal's height in rows, when standard output is one: `LINES` when it is set (as
    /// curses reads it), else the window's size as it is now; nil when neither is known.
    static var rows: Int? {
        guard isInteractive else { return nil }
        return size("LINES", \.ws_row)
    }

    /// One of the window's sizes: `variable` when set to a positive number, else the window's
    /// `field` (asked anew each time), else nil.
    private static func size(_ variable: String, _ field: KeyPath<winsize, UInt16>) -> Int? {
        if let value = ProcessInfo.processInfo.environment[variable].flatMap(Int.init), value > 0 { return value }
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window[keyPath: field] > 0 else { return nil }
        return Int(window[keyPath: field])
    }

    /// Writes to standard output at once, so a reading process sees it. When the reader has gone
    /// (`halftunes list --json | head -1`), ends quietly with status 141, as a Unix tool killed by
    /// SIGPIPE does; downloads in flight stay resumable.
    @Sendable static func write(_ text: String) {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
        } catch {
            exit(141)
        }
    }

    /// Writes one line to standard error.
    @Sendable static func warn(_ line: String) {
        try? FileHandle.standardError.write(contentsOf: Data("halftunes: \(line)\n".utf8))
    }

    /// A line for the user from a library: warnings to standard error, the rest to standard output.
    @Sendable static func say(_ line: String) {
        if line.hasPrefix("warning:") { warn(line) } else { write(line + "\n") }
    }

    /// Sends logs to standard error; `HALFTUNES_LOG` (trace…critical) sets the level, warning by default.
    static func bootstrapLogging() {
        let level = ProcessInfo.processInfo.environment["HALFTUNES_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

/// A failure the command reports as one line on standard error, exiting non-zero.
struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
