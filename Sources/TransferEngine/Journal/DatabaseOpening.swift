import Dispatch

/// Opening a database off Swift's cooperative threads.
///
/// Opening blocks: GRDB runs it on the database's own queue while the caller waits, and a new
/// database flushes its first pages. A Swift task that opened one directly would hold one of the
/// cooperative threads (one a core) meanwhile, and a command's start opens two databases side by
/// side while its first catalog lookup and its other tasks need those threads.
package enum DatabaseOpening {
    /// Runs `open` on a thread of its own (a dispatch queue named `label`) and returns what it made,
    /// or throws what it threw; the calling task is suspended, not blocked, meanwhile.
    package static func run<T: Sendable, E: Error>(
        label: String, _ open: @escaping @Sendable () throws(E) -> T
    ) async throws(E) -> T {
        let opened: Result<T, E> = await withCheckedContinuation { continuation in
            DispatchQueue(label: label).async { continuation.resume(returning: Result { () throws(E) in try open() }) }
        }
        return try opened.get()
    }
}
