/// The clock as the engine needs it: elapsed time, sleeping, and jitter for backoff.
///
/// Wraps any `Clock` whose durations are `Duration`, so tests can control time.
struct Timekeeper: Sendable {
    let now: @Sendable () -> Duration
    let sleep: @Sendable (Duration) async throws -> Void
    let jitter: @Sendable () -> Double

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { try await clock.sleep(for: $0) }
        jitter = { Double.random(in: 0..<1) }
    }
}
