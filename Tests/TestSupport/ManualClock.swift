import Synchronization

/// A clock that only moves when a test advances it, so pacing and expiry are tested without sleeping.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let state = Mutex<(now: Instant, sleepers: [Sleeper])>((Instant(offset: .zero), []))
    private let sleeperAdded = Mutex<[CheckedContinuation<Void, Never>]>([])

    /// A clock at time zero.
    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if deadline <= state.now { return true }
                state.sleepers.append(Sleeper(deadline: deadline, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
            sleeperAdded.withLock { waiters in
                waiters.forEach { $0.resume() }
                waiters = []
            }
        }
    }

    /// When each sleeping task wants to wake, as offsets from time zero, earliest first.
    public var sleeperDeadlines: [Duration] { state.withLock { $0.sleepers.map(\.deadline.offset).sorted() } }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Waits until at least `count` tasks sleep on this clock.
    public func waitForSleepers(_ count: Int) async {
        while sleeperCount < count {
            await withCheckedContinuation { continuation in
                sleeperAdded.withLock { $0.append(continuation) }
                if sleeperCount >= count {
                    sleeperAdded.withLock { waiters in
                        waiters.forEach { $0.resume() }
                        waiters = []
                    }
                }
            }
        }
    }

    /// Moves time forward, waking every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        due.forEach { $0.continuation.resume() }
    }
}
