import Synchronization

/// One subscriber of an ``EventHub``: its undelivered events, never more than the bound's limit,
/// and the consumer waiting for the next one.
///
/// Inlinable, as ``EventHub``'s work is (see there), so that it runs specialized to the events of
/// the layer that owns the hub.
@usableFromInline
final class HubSubscriber<Event: Sendable>: Sendable {
    @usableFromInline
    struct State: ~Copyable {
        /// Undelivered events are `buffer[head...]`; `buffer[i]` is event number `base + i`.
        @usableFromInline var buffer: [Event] = []
        @usableFromInline var head = 0
        @usableFromInline var base = 0
        /// The number of the undelivered replaceable event of each subject.
        @usableFromInline var replaceable: [SubjectKey: Int] = [:]
        @usableFromInline var waiter: CheckedContinuation<Event?, Never>?
        /// No event is taken any more; the stream ends once the buffer is delivered.
        @usableFromInline var closed = false

        init() {}

        @inlinable
        var backlog: Int { buffer.count - head }

        @inlinable
        mutating func take() -> Event? {
            guard head < buffer.count else { return nil }
            let event = buffer[head]
            head += 1
            if head >= 64 && head * 2 >= buffer.count {
                buffer.removeFirst(head)
                base += head
                head = 0
            }
            return event
        }
    }

    @usableFromInline
    enum Outcome {
        case event(Event)
        case end
        case wait
    }

    @usableFromInline
    enum BatchOutcome {
        case events([Event])
        case end
        case wait
    }

    @usableFromInline let bound: EventHub<Event>.Bound
    @usableFromInline let floor: BacklogFloor
    @usableFromInline let state = Mutex(State())

    @usableFromInline
    init(bound: EventHub<Event>.Bound, floor: BacklogFloor) {
        self.bound = bound
        self.floor = floor
    }

    /// Takes an event; `false` when this subscriber takes no more (it fell behind or finished).
    @inlinable
    func offer(_ event: Event) -> Bool {
        let subject = bound.subject(event).map(SubjectKey.init)
        let replaceable = bound.isReplaceable(event)
        var wake: CheckedContinuation<Event?, Never>?
        let taken = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            if let waiter = state.waiter {
                state.waiter = nil
                wake = waiter
                return true
            }
            if replaceable, let subject, let number = state.replaceable[subject], number >= state.base + state.head {
                state.buffer[number - state.base] = event
                return true
            }
            guard state.backlog < max(bound.limit, floor.value.load(ordering: .relaxed)) else {
                // Fallen behind: what it holds is dropped for one last event telling it so.
                let dropped = state.backlog + 1
                state.buffer = [bound.overflow(dropped)]
                (state.head, state.base, state.replaceable, state.closed) = (0, 0, [:], true)
                return false
            }
            state.buffer.append(event)
            if let subject { state.replaceable[subject] = replaceable ? state.base + state.buffer.count - 1 : nil }
            return true
        }
        wake?.resume(returning: event)
        return taken
    }

    /// The next event, waiting for one; `nil` once closed and delivered.
    @inlinable
    func next() async -> Event? {
        await withCheckedContinuation { continuation in
            let outcome = state.withLock { state -> Outcome in
                if let event = state.take() { return .event(event) }
                if state.closed { return .end }
                state.waiter = continuation
                return .wait
            }
            switch outcome {
            case .event(let event): continuation.resume(returning: event)
            case .end: continuation.resume(returning: nil)
            case .wait: break
            }
        }
    }

    /// The events waiting, up to `limit` of them, in order; when none waits, the next one alone
    /// (waiting for it); `nil` once closed and delivered.
    @inlinable
    func nextBatch(limit: Int) async -> [Event]? {
        let outcome = state.withLock { state -> BatchOutcome in
            var batch: [Event] = []
            while batch.count < limit, let event = state.take() { batch.append(event) }
            if !batch.isEmpty { return .events(batch) }
            return state.closed ? .end : .wait
        }
        switch outcome {
        case .events(let batch): return batch
        case .end: return nil
        case .wait: return await next().map { [$0] }
        }
    }

    /// Takes no more events; the consumer gets what is buffered, then the end.
    @usableFromInline
    func finish() {
        let waiter = state.withLock { state in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Undelivered events.
    @usableFromInline
    var backlog: Int { state.withLock { $0.backlog } }
}

/// A subject as a dictionary key. (`AnyHashable` is not `Sendable`; the subjects a bound gives
/// are the ids of downloads, which are.)
@usableFromInline
struct SubjectKey: Hashable, @unchecked Sendable {
    @usableFromInline let value: AnyHashable

    @usableFromInline
    init(_ value: AnyHashable) { self.value = value }
}
