import NIOCore
import Synchronization

/// The limits that keep the server answering when clients misbehave.
public struct ConnectionLimits: Sendable {
    /// Connections open at once; past it, a new connection's request is answered 503 and closed.
    public var maximumConnections: Int
    /// How long a kept-alive connection may sit with no request before it is closed.
    public var idleTimeout: Duration
    /// How long one write to a client may wait for it to read (an event stream to a client that
    /// stopped reading is closed after this).
    public var sendTimeout: Duration
    /// The most bytes of request line and headers; past it, the answer is 431.
    public var maximumHeaderBytes: Int
    /// How often an event stream is sent a comment line (`: keep-alive`, which SSE clients
    /// ignore): a client (or a proxy) that times out a silent response keeps the stream while
    /// downloads are paused or wait to retry, and a client gone away is noticed.
    public var eventHeartbeat: Duration

    /// Limits; the defaults suit a local app with a few tabs and scripts.
    public init(
        maximumConnections: Int = 1024, idleTimeout: Duration = .seconds(60), sendTimeout: Duration = .seconds(15),
        maximumHeaderBytes: Int = 16 * 1024, eventHeartbeat: Duration = .seconds(15)
    ) {
        self.maximumConnections = maximumConnections
        self.idleTimeout = idleTimeout
        self.sendTimeout = sendTimeout
        self.maximumHeaderBytes = maximumHeaderBytes
        self.eventHeartbeat = eventHeartbeat
    }
}

/// The number of open connections, shared by every connection's ``ConnectionGuard``.
final class ConnectionCount: Sendable {
    let limit: Int
    private let open = Atomic<Int>(0)
    /// Told of each connection opened or closed.
    private let onChange: (@Sendable () -> Void)?

    init(limit: Int, onChange: (@Sendable () -> Void)? = nil) { (self.limit, self.onChange) = (limit, onChange) }

    /// Counts a new connection; `false` when it is over the limit.
    func opened() -> Bool {
        defer { onChange?() }
        return open.wrappingAdd(1, ordering: .relaxed).newValue <= limit
    }

    func closed() {
        open.wrappingSubtract(1, ordering: .relaxed)
        onChange?()
    }

    /// Connections open now.
    var current: Int { open.load(ordering: .relaxed) }
}
