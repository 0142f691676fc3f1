import Synchronization

/// Hands every value to every subscriber, each through its own stream.
///
/// What ``TransferSession/events()`` is made of; public so that layers above can offer the
/// same kind of event stream. By default each subscriber's backlog is unbounded, which suits
/// consumers in the same process that keep up. A hub that serves consumers it does not trust to
/// keep up (a browser tab, a pipe) takes a ``Bound``: then a subscriber's undelivered events never
/// exceed its limit, and one that falls that far behind gets a last event and its stream ends.
public final class EventHub<Event: Sendable>: Sendable {
    /// How far a subscriber may fall behind.
    public struct Bound: Sendable {
        /// The most undelivered events a subscriber may hold.
        public var limit: Int
        /// What an event is about (a download), or `nil` for an event about nothing in particular.
        public var subject: @Sendable (Event) -> AnyHashable?
        /// Whether an event may be replaced, while undelivered, by a later replaceable event about
        /// the same subject (progress: the latest wins, in the place of the first). Any other event
        /// is kept, and ends the replacing of its subject's earlier events, so nothing is
        /// reordered around it.
        public var isReplaceable: @Sendable (Event) -> Bool
        /// The last event of a subscriber that fell behind, given how many events it lost.
        public var overflow: @Sendable (Int) -> Event

        /// A bound.
        public init(
            limit: Int, subject: @escaping @Sendable (Event) -> AnyHashable?,
            isReplaceable: @escaping @Sendable (Event) -> Bool, overflow: @escaping @Sendable (Int) -> Event
        ) {
            self.limit = max(1, limit)
            self.subject = subject
            self.isReplaceable = isReplaceable
            self.overflow = overflow
        }
    }

    // The hub's work is inlinable, so that a layer above with its own events (the download
    // service's) runs code specialized to them.
    @usableFromInline let bound: Bound
    /// The subscribers. Emitting reads the array (shared, not copied) and offers outside the lock.
    @usableFromInline let subscribers = Mutex<[HubSubscriber<Event>]>([])
    @usableFromInline let floor = BacklogFloor()

    /// A hub with no subscribers; `bound` limits each subscriber's backlog (`nil`: unbounded).
    public init(bound: Bound? = nil) {
        self.bound =
            bound
            ?? Bound(
                limit: .max, subject: { _ in nil }, isReplaceable: { _ in false },
                overflow: { _ in preconditionFailure("an unbounded subscriber never falls behind") })
    }

    /// A new stream of the values emitted from now on; it ends at ``finish()`` (or, for a bounded
    /// hub, after the overflow event of a subscriber that fell behind).
    @inlinable
    public func subscribe() -> AsyncStream<Event> {
        stream { subscriber in await subscriber.next() }
    }

    /// A new stream of the values emitted from now on, in batches: each element is every value
    /// waiting for this subscriber when it asks (at most `limit`, at least one), in order. For a
    /// consumer whose work per value has a fixed cost it can share (a database commit), so that
    /// the more it falls behind, the less each value costs it.
    @inlinable
    public func subscribeBatches(limit: Int = 256) -> AsyncStream<[Event]> {
        let limit = max(1, limit)
        return stream { subscriber in await subscriber.nextBatch(limit: limit) }
    }

    /// A stream of what `take` gives from a new subscriber, until it gives `nil`. The stream
    /// holds the subscription's token: when the stream is dropped, the subscription goes with it.
    @inlinable
    func stream<Element>(
        _ take: @escaping @Sendable (HubSubscriber<Event>) async -> Element?
    ) -> AsyncStream<Element> {
        let subscriber = HubSubscriber<Event>(bound: bound, floor: floor)
        subscribers.withLock { $0.append(subscriber) }
        let token = SubscriptionToken { [weak self] in self?.remove(subscriber) }
        return AsyncStream(
            unfolding: {
                let element = await take(subscriber)
                if element == nil { token.cancel() }
                return element
            },
            onCancel: {
                subscriber.finish()
                token.cancel()
            })
    }

    /// Lets every subscriber hold at least `count` undelivered events from now on (the bound's
    /// limit stays the least; this never lowers it). For an owner whose events come in bursts the
    /// size of work it knows of: 2,000 downloads started at once are 2,000 state changes at once,
    /// and a listener that keeps up with the downloads is that far behind for a moment, not
    /// stuck. A subscriber that falls further behind still gets the overflow event.
    public func allowBacklog(atLeast count: Int) {
        _ = floor.value.max(count, ordering: .relaxed)
    }

    /// Sends a value to every subscriber.
    @inlinable
    public func emit(_ event: Event) {
        for subscriber in subscribers.withLock({ $0 }) where !subscriber.offer(event) {
            remove(subscriber)
        }
    }

    /// Lets a subscriber go.
    @usableFromInline
    func remove(_ subscriber: HubSubscriber<Event>) {
        subscribers.withLock { $0.removeAll { $0 === subscriber } }
    }

    /// Ends every stream.
    public func finish() {
        let all = subscribers.withLock { subscribers in
            defer { subscribers = [] }
            return subscribers
        }
        all.forEach { $0.finish() }
    }

    /// How many events each subscriber holds undelivered (for tests and diagnostics).
    public var backlogs: [Int] { subscribers.withLock { $0.map(\.backlog) } }
}

/// The least backlog limit of a hub's subscribers, raised by ``EventHub/allowBacklog(atLeast:)``.
@usableFromInline
final class BacklogFloor: Sendable {
    @usableFromInline let value = Atomic<Int>(0)

    @usableFromInline init() {}
}

/// Runs an action once, when cancelled or when it is let go of.
@usableFromInline
final class SubscriptionToken: Sendable {
    private let action = Mutex<(@Sendable () -> Void)?>(nil)

    @usableFromInline
    init(_ action: @escaping @Sendable () -> Void) { self.action.withLock { $0 = action } }

    @usableFromInline
    func cancel() {
        action.withLock { action in
            defer { action = nil }
            return action
        }?()
    }

    deinit { cancel() }
}
