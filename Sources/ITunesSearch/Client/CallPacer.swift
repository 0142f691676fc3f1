/// Keeps calls under a limit per sliding window: the `n+1`th call in a window is scheduled when
/// the oldest of the last `n` leaves it.
///
/// Pure and clock-free: times are offsets from any fixed origin, so it is tested without sleeping.
struct CallPacer: Sendable {
    let limit: Int
    let window: Duration
    /// Start times of the most recent calls (at most `limit`), oldest first.
    private var recent: [Duration] = []
    /// No call before this time (set after the API said "too many").
    private var blockedUntil: Duration?

    init(limit: Int, window: Duration = .seconds(60)) {
        precondition(limit > 0, "a pacer needs a positive limit")
        self.limit = limit
        self.window = window
    }

    /// When a call asked for at `now` may start; the call is then counted at that time.
    mutating func reserve(at now: Duration) -> Duration {
        var start = now
        if let blockedUntil, blockedUntil > start { start = blockedUntil }
        if recent.count >= limit, let oldest = recent.first, oldest + window > start {
            start = oldest + window
        }
        recent.append(start)
        if recent.count > limit { recent.removeFirst(recent.count - limit) }
        return start
    }

    /// The time a call asked for at `now` would have to wait, without reserving a slot.
    func wait(at now: Duration) -> Duration {
        var start = now
        if let blockedUntil, blockedUntil > start { start = blockedUntil }
        if recent.count >= limit, let oldest = recent.first, oldest + window > start {
            start = oldest + window
        }
        return start - now
    }

    /// Holds every call back until `until` (the server said we are over its limit).
    mutating func block(until: Duration) {
        blockedUntil = max(blockedUntil ?? until, until)
    }
}
