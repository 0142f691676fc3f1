import Foundation
import Synchronization

/// Hands every value to every subscriber, each through its own unbounded stream.
///
/// What ``TransferSession/events()`` is made of; public so that layers above can offer the
/// same kind of event stream.
public final class EventHub<Event: Sendable>: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<Event>.Continuation]>([:])

    /// A hub with no subscribers.
    public init() {}

    /// A new stream of the values emitted from now on; it ends at ``finish()``.
    public func subscribe() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: key) }
        }
        subscribers.withLock { $0[key] = continuation }
        return stream
    }

    /// Sends a value to every subscriber.
    public func emit(_ event: Event) {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    /// Ends every stream.
    public func finish() {
        let all = subscribers.withLock { subscribers in
            defer { subscribers = [:] }
            return Array(subscribers.values)
        }
        all.forEach { $0.finish() }
    }
}
