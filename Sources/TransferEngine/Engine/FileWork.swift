import NIOPosix

/// Blocking file work — flushes and renames of finished files — on threads of its own.
///
/// A flush can block for milliseconds. Run on Swift's cooperative pool (one thread a core), a few
/// of them at once would stall every task of the process: the session, the event delivery, the
/// next files' starts. Here they wait on their own threads, several at a time, and the file
/// system commits flushes that arrive together as one.
enum FileWork {
    /// Threads for flushes in flight: finished files (at most as many as transfers) and folders.
    static let threadCount = 8

    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: threadCount)
        pool.start()
        return pool
    }()

    /// Runs `body` on a file-work thread and returns its result. Not cancellable: once asked
    /// for, a flush or rename runs to its end (the caller's cancellation is seen after).
    ///
    /// The caller resumes straight from the file-work thread: no event loop carries the result
    /// (a finished file used to wake one of the HTTP client's event loops once per flush).
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws(TransferError) -> T) async throws(TransferError) -> T {
        let result: Result<T, TransferError> = await withCheckedContinuation { continuation in
            pool.submit { state in
                guard case .active = state else {
                    continuation.resume(
                        returning: .failure(
                            TransferError(.fileSystem, "cannot finish the file: its threads have stopped", permanent: false)))
                    return
                }
                continuation.resume(returning: Result { () throws(TransferError) in try body() })
            }
        }
        return try result.get()
    }

    /// Runs `body` on a file-work thread without waiting for it (where the caller runs, should the
    /// threads have stopped).
    static func submit(_ body: @escaping @Sendable () -> Void) {
        pool.submit { _ in body() }
    }
}
