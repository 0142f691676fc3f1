import Foundation
import HalfTunesKit

/// Tells when the agent has been idle — no client connected and no download queued or running
/// — for a given time. Woken by each change (a connection opened or closed, a download's state),
/// never polling: while busy it waits for the next change; once idle it sleeps the idle time
/// once, and the agent ends when nothing changed meanwhile.
actor IdleWatch {
    private let idle: Duration
    private var changes = 0
    private var waiter: CheckedContinuation<Void, Never>?

    init(idle: Duration) { self.idle = idle }

    /// Notes a change (from any thread).
    nonisolated func changed() { Task { await self.note() } }

    private func note() {
        changes += 1
        waiter?.resume()
        waiter = nil
    }

    /// Returns once `isIdle` has held for the idle time with no change meanwhile.
    func wait(until isIdle: @Sendable () async -> Bool) async {
        while !Task.isCancelled {
            let seen = changes
            if await !isIdle() {
                if seen == changes {
                    await withTaskCancellationHandler {
                        await withCheckedContinuation { waiter = $0 }
                    } onCancel: {
                        changed()
                    }
                }
                continue
            }
            try? await Task.sleep(for: idle)
            if seen == changes, await isIdle() { return }
        }
    }
}
