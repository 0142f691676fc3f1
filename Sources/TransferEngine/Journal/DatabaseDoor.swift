import GRDB
import Synchronization

/// The one way to a database that a process closes itself (the journal, the library's index):
/// closed once, and never touched after — a closed connection handed to SQLite crashes the
/// process, so a use after ``close()`` gets `nil` instead.
package final class DatabaseDoor: Sendable {
    private let database: any DatabaseWriter
    private let closed = Mutex(false)

    package init(_ database: any DatabaseWriter) { self.database = database }

    /// The database, unless it has been closed.
    package var open: (any DatabaseWriter)? { closed.withLock { $0 } ? nil : database }

    /// Closes the database now rather than when the last reference goes, its write-ahead log
    /// folded in and deleted: the readers first, so that the writer closes last (a reader closing
    /// last cannot fold the log). Nothing waits: a log another process still reads stays, as
    /// SQLite keeps it. Once only; later calls do nothing.
    package func close() {
        guard
            closed.withLock({ wasClosed in
                defer { wasClosed = true }
                return !wasClosed
            })
        else { return }
        if let pool = database as? DatabasePool {
            pool.releaseMemory()
            try? pool.close()
        } else if let queue = database as? DatabaseQueue {
            try? queue.close()
        }
    }
}
