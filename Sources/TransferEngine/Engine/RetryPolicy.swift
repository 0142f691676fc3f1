/// How transient failures are retried: capped exponential backoff with jitter, honouring the
/// server's `Retry-After` (within reason).
public struct RetryPolicy: Sendable, Hashable, Codable {
    /// Attempts in a row without progress before giving up (an attempt that received bytes starts
    /// the count again, so a flaky but working connection always finishes).
    public var maxAttemptsWithoutProgress: Int
    /// The first delay.
    public var baseDelay: Duration
    /// The longest delay backoff reaches.
    public var maxDelay: Duration
    /// The longest `Retry-After` honoured; a longer one is cut to this.
    public var maxRetryAfter: Duration

    /// Creates a policy; the defaults retry 6 times over about 30 seconds.
    public init(
        maxAttemptsWithoutProgress: Int = 6,
        baseDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(30),
        maxRetryAfter: Duration = .seconds(300)
    ) {
        self.maxAttemptsWithoutProgress = maxAttemptsWithoutProgress
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// The wait before the next attempt, or `nil` to give up.
    ///
    /// - Parameters:
    ///   - failedAttempts: Attempts in a row that failed without progress (1 after the first).
    ///   - retryAfter: What the server asked for, if anything.
    ///   - jitter: A number in 0..<1; the delay is scaled by 0.5 + jitter/2 so clients spread out.
    public func delay(afterFailedAttempts failedAttempts: Int, retryAfter: Duration?, jitter: Double) -> Duration? {
        guard failedAttempts < maxAttemptsWithoutProgress else { return nil }
        if let retryAfter { return min(retryAfter, maxRetryAfter) }
        let exponent = min(max(failedAttempts - 1, 0), 20)
        let backoff = min(baseDelay * (1 << exponent), maxDelay)
        return backoff * (0.5 + min(max(jitter, 0), 1) / 2)
    }
}
