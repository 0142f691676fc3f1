/// A small least-recently-used cache of answers that expire.
///
/// Pure: the caller passes the current time, so expiry is tested without a clock.
struct ResponseCache<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var expires: Duration
    }

    let capacity: Int
    let lifetime: Duration
    private var entries: [String: Entry] = [:]
    /// Keys from least to most recently used.
    private var order: [String] = []

    init(capacity: Int, lifetime: Duration) {
        self.capacity = max(0, capacity)
        self.lifetime = lifetime
    }

    /// The cached value for `key` if it has not expired at `now`.
    mutating func value(for key: String, at now: Duration) -> Value? {
        guard let entry = entries[key] else { return nil }
        guard entry.expires > now else {
            remove(key)
            return nil
        }
        touch(key)
        return entry.value
    }

    /// Stores `value`, evicting the least recently used entry when full.
    mutating func insert(_ value: Value, for key: String, at now: Duration) {
        guard capacity > 0 else { return }
        entries[key] = Entry(value: value, expires: now + lifetime)
        touch(key)
        while order.count > capacity { entries[order.removeFirst()] = nil }
    }

    private mutating func touch(_ key: String) {
        order.removeAll { $0 == key }
        order.append(key)
    }

    private mutating func remove(_ key: String) {
        entries[key] = nil
        order.removeAll { $0 == key }
    }
}
