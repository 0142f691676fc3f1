/// The clock as HalfTunes' libraries need it: time since an origin, sleeping, and jitter for
/// backoff. Wraps any `Clock` whose durations are `Duration`, so tests can pass a manual clock.
public struct Timekeeper: Sendable {
    /// Time since the timekeeper was made.
    public let now: @Sendable () -> Duration
    /// Sleeps for a duration (throws when the task is cancelled).
    public let sleep: @Sendable (Duration) async throws -> Void
    /// A number in 0..<1 to spread retries out.
    public let jitter: @Sendable () -> Double

    /// Wraps a clock.
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { try await clock.sleep(for: $0) }
        jitter = { Double.random(in: 0..<1) }
    }
}
