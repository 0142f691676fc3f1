import Synchronization

/// What a test server saw: a thread-safe list a handler appends to and a test reads.
public final class RequestLog<Entry: Sendable>: Sendable {
    private let entries = Mutex<[Entry]>([])

    /// An empty log.
    public init() {}

    /// Records one entry.
    public func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    /// Everything recorded so far.
    public var all: [Entry] { entries.withLock { $0 } }

    /// How many entries were recorded.
    public var count: Int { entries.withLock { $0.count } }
}
