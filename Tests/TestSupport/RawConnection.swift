import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to a local server, for what an HTTP client library hides: an HTTP/1.0
/// request, a client that stops reading, a connection the server closes.
///
/// Every read waits at most `timeout` (then it reports a timeout), so a test cannot hang on it,
/// and runs on a thread of its own, never on the cooperative pool the server's handlers need.
public final class RawConnection: @unchecked Sendable {
    private let socket: Int32

    /// The outcome of reading.
    public enum End: Equatable, Sendable {
        /// The server closed the connection.
        case closed
        /// Nothing came for the whole timeout.
        case timedOut
    }

    /// Connects to `127.0.0.1:port`.
    public init(port: Int, timeout: Duration = .seconds(10)) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EMFILE) }
        let (seconds, attoseconds) = timeout.components
        var limit = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(socket)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(socket) }

    /// Sends text as it is.
    public func send(_ text: String) throws {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeMutableBytes {
                Glibc.send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { throw POSIXError(.EPIPE) }
            offset += sent
        }
    }

    /// Reads until the server closes the connection, `limit` bytes have come, or nothing comes
    /// for the timeout.
    public func readToEnd(limit: Int = 64 << 20) async -> (data: Data, end: End) {
        let (data, end) = await read { data, _ in data.count >= limit }
        return (data, end ?? .timedOut)
    }

    /// Reads until `marker` has come (returning everything read), or the connection ends first.
    public func read(until marker: String) async -> (data: Data, end: End?) {
        let needle = Data(marker.utf8)
        return await read { data, latest in
            data.range(of: needle, in: max(0, data.count - latest - needle.count)..<data.count) != nil
        }
    }

    /// Reads, on a thread of its own, until `done` (given all that came and the size of the latest
    /// piece) says so (`end` is then `nil`), or the connection closes, or the timeout passes.
    private func read(until done: @escaping @Sendable (Data, Int) -> Bool) async -> (data: Data, end: End?) {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [socket] in
                var data = Data()
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = recv(socket, &buffer, buffer.count, 0)
                    if count == 0 { return continuation.resume(returning: (data, .closed)) }
                    if count < 0 {
                        let end: End = errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .closed  // a reset is a close
                        return continuation.resume(returning: (data, end))
                    }
                    data.append(contentsOf: buffer[0..<count])
                    if done(data, count) { return continuation.resume(returning: (data, nil)) }
                }
            }
        }
    }
}
