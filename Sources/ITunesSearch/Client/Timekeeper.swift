/// A clock reduced to what the catalog needs: the time since an origin, and sleeping.
///
/// Wraps any `Clock` whose durations are `Duration`, so tests can pass a manual clock.
struct Timekeeper: Sendable {
    let now: @Sendable () -> Duration
    let sleep: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { try await clock.sleep(for: $0) }
    }
}
