import Synchronization

/// Closes a connection whose client stopped reading: when one write has waited longer than the
/// timeout (checked a few times a timeout), it calls `expire` once.
final class SendWatchdog: Sendable {
    /// When the write in progress started.
    private final class WriteStart: Sendable {
        let instant = Mutex<ContinuousClock.Instant?>(nil)
    }

    private let start = WriteStart()
    private let task: Task<Void, Never>

    init(timeout: Duration, expire: @escaping @Sendable () -> Void) {
        let start = self.start
        task = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: timeout / 4)
                if let since = start.instant.withLock({ $0 }), ContinuousClock.now - since > timeout {
                    expire()
                    return
                }
            }
        }
    }

    /// Runs one write, timed.
    func timing<T>(_ write: () async throws -> T) async throws -> T {
        start.instant.withLock { $0 = .now }
        defer { start.instant.withLock { $0 = nil } }
        return try await write()
    }

    /// Stops watching.
    func stop() { task.cancel() }
}
