import Dispatch
import Foundation

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

extension DatabaseOpening {
    /// The name to open the database at `path` by, for reading only: the path itself, or, when its
    /// folder cannot be written (a read-only file system, another user's folder), an `immutable`
    /// URI — SQLite could not make the write-ahead log's shared-memory file there, and nothing can
    /// change the database meanwhile anyway.
    package static func readOnlyName(path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        guard access(folder.isEmpty ? "." : folder, W_OK) != 0 else { return path }
        let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["?", "#", "%"])) ?? path
        return "file:\(escaped)?immutable=1"
    }
}
