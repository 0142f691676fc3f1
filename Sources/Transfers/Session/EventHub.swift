import Foundation
import Synchronization

/// Hands every event to every subscriber, each through its own stream.
final class EventHub: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<TransferEvent>.Continuation]>([:])

    /// A new stream of events from now on; it ends when the session closes.
    func subscribe() -> AsyncStream<TransferEvent> {
        let (stream, continuation) = AsyncStream<TransferEvent>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: key) }
        }
        subscribers.withLock { $0[key] = continuation }
        return stream
    }

    func emit(_ event: TransferEvent) {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    func finish() {
        let all = subscribers.withLock { subscribers in
            defer { subscribers = [:] }
            return Array(subscribers.values)
        }
        all.forEach { $0.finish() }
    }
}
