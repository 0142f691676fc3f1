import NIOCore
import Synchronization
import SystemBasics

/// The limits that keep the server answering when clients misbehave.
public struct ConnectionLimits: Sendable {
    /// Connections open at once; past it, a new connection's request is answered 503 and closed.
    public var maximumConnections: Int
    /// How long a connection may go without a whole request part (head, body part, end) before
    /// it is closed: a kept-alive connection with no request, and a client that trickles its
    /// headers a byte at a time (bytes that make no whole part do not count as activity).
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
        maximumConnections: Int = ConnectionLimits.connectionsForDescriptors(), idleTimeout: Duration = .seconds(60),
        sendTimeout: Duration = .seconds(15), maximumHeaderBytes: Int = 16 * 1024, eventHeartbeat: Duration = .seconds(15)
    ) {
        self.maximumConnections = maximumConnections
        self.idleTimeout = idleTimeout
        self.sendTimeout = sendTimeout
        self.maximumHeaderBytes = maximumHeaderBytes
        self.eventHeartbeat = eventHeartbeat
    }
}

extension ConnectionLimits {
    /// Connections a process may accept and still have descriptors for its downloads, journal,
    /// library and files being served: its soft descriptor limit less 256 (at least 16), at most
    /// 4,096. Processes that serve raise that limit to the hard one first (``DescriptorLimit``).
    public static func connectionsForDescriptors(_ limit: Int = DescriptorLimit.current) -> Int {
        min(4096, max(16, limit - 256))
    }
}

/// The number of open connections, shared by every connection's ``ConnectionGuard``.
package final class ConnectionCount: Sendable {
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
    package var current: Int { open.load(ordering: .relaxed) }
}
