import Foundation
import HalfTunesKit

/// What a command line knows of the terminal on standard output: whether it is one, whether it
/// may be coloured, and its size, asked anew each time (so a display follows a resized window).
public enum TerminalWindow {
    /// Whether standard output is a terminal (tables fit its width; progress bars redraw).
    public static var isInteractive: Bool { isatty(STDOUT_FILENO) == 1 }

    /// Whether output may be coloured: a terminal, no `NO_COLOR` (https://no-color.org), not `TERM=dumb`.
    public static var usesColor: Bool {
        let environment = ProcessInfo.processInfo.environment
        return isInteractive && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// The width in columns, when standard output is a terminal: `COLUMNS` when it is set (as `ls`
    /// and Python's tools read it), else the window's, else 80.
    public static var columns: Int? {
        guard isInteractive else { return nil }
        return size("COLUMNS", \.ws_col) ?? 80
    }

    /// The height in rows, when standard output is a terminal: `LINES` when it is set (as curses
    /// reads it), else the window's; nil when neither is known.
    public static var rows: Int? {
        guard isInteractive else { return nil }
        return size("LINES", \.ws_row)
    }

    /// `variable` when set to a positive number, else the window's `field`, else nil.
    private static func size(_ variable: String, _ field: KeyPath<winsize, UInt16>) -> Int? {
        if let value = ProcessInfo.processInfo.environment[variable].flatMap(Int.init), value > 0 { return value }
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window[keyPath: field] > 0 else { return nil }
        return Int(window[keyPath: field])
    }
}
