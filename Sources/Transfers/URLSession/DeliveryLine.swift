import Foundation
import Synchronization

/// Delivers a session's delegate calls one at a time and in order on its delegate queue,
/// whatever that queue's width: the calls wait in one line here, and one operation at a time on
/// the queue takes them in turn (a queue of width 8 still runs one of this session's calls at once).
final class DeliveryLine: Sendable {
    private struct Line {
        var waiting: [@Sendable () -> Void] = []
        var next = 0
        var draining = false
    }

    private let queue: OperationQueue
    private let line = Mutex(Line())

    init(queue: OperationQueue) { self.queue = queue }

    /// Runs `body` on the queue after everything added before it, never beside it.
    func add(_ body: @escaping @Sendable () -> Void) {
        let starts = line.withLock { line -> Bool in
            line.waiting.append(body)
            guard !line.draining else { return false }
            line.draining = true
            return true
        }
        if starts { queue.addOperation { self.drain() } }
    }

    private func drain() {
        while let body = take() { body() }
    }

    /// The next call, or `nil` (and the line idle) when none waits.
    private func take() -> (@Sendable () -> Void)? {
        line.withLock { line in
            guard line.next < line.waiting.count else {
                line.waiting.removeAll(keepingCapacity: true)
                line.next = 0
                line.draining = false
                return nil
            }
            defer { line.next += 1 }
            return line.waiting[line.next]
        }
    }
}
