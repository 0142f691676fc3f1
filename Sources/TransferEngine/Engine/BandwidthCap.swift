import NIOCore
import Synchronization

/// One cap on the bytes a second of all a session's transfers together: a token bucket each
/// body part draws on, holding the connection's reads back (AsyncHTTPClient's backpressure) for
/// as long as the part overdrew it. The cap can change while transfers run. Thread-safe.
final class BandwidthCap: Sendable {
    private struct Bucket {
        var rate: Int?
        var tokens: Double = 0
        var last: ContinuousClock.Instant
    }

    private let bucket: Mutex<Bucket>

    /// A cap of `bytesPerSecond` (`nil`: none).
    init(bytesPerSecond: Int?) {
        bucket = Mutex(Bucket(rate: bytesPerSecond, last: .now))
    }

    /// The cap now.
    var bytesPerSecond: Int? { bucket.withLock { $0.rate } }

    /// Changes the cap (`nil`: none); transfers follow from their next body part.
    func set(bytesPerSecond: Int?) {
        bucket.withLock { bucket in
            bucket.rate = bytesPerSecond
            bucket.tokens = 0
            bucket.last = .now
        }
    }

    /// Takes `bytes` that have arrived; returns how long to hold the next read back, `nil` for
    /// not at all. A burst of a quarter second's worth is allowed, so parts flow smoothly.
    func take(_ bytes: Int, now: ContinuousClock.Instant = .now) -> TimeAmount? {
        bucket.withLock { bucket in
            guard let rate = bucket.rate, rate > 0 else { return nil }
            let elapsed = now - bucket.last
            bucket.last = now
            let burst = Double(rate) / 4
            bucket.tokens = min(burst, bucket.tokens + Double(rate) * (elapsed / .seconds(1)))
            bucket.tokens -= Double(bytes)
            guard bucket.tokens < 0 else { return nil }
            return .nanoseconds(Int64(-bucket.tokens / Double(rate) * 1e9))
        }
    }
}
