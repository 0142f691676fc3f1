import Foundation
import HalfTunesKit
import HalfTunesTerminal

/// What the command line writes, and where.
enum Terminal {
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

    /// Writes one line to standard error, control characters (from a catalog's or a server's
    /// text, say) shown as spaces: no bytes of theirs drive the terminal.
    @Sendable static func warn(_ line: String) {
        try? FileHandle.standardError.write(contentsOf: Data("halftunes: \(DisplayWidth.printable(line))\n".utf8))
    }

    /// A line for the user from a library: warnings to standard error, the rest to standard output.
    @Sendable static func say(_ line: String) {
        if line.hasPrefix("warning:") { warn(line) } else { write(line + "\n") }
    }

    /// Sends logs to standard error (``CommandLogging``).
    static func bootstrapLogging() { CommandLogging.bootstrap() }
}
