import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP listener on 127.0.0.1 whose first connections (one, unless told more) are relayed to a
/// server (byte for byte: a real TLS handshake with it), and whose later connections are accepted
/// and then never answered, as a server that stalls a second handshake. It counts the connections
/// it accepts: how many tries a client made. Threads of its own; ``stop()`` closes everything.
public final class StallingRelay: Sendable {
    /// Its port.
    public let port: Int
    /// Connections accepted so far.
    public var accepted: Int { count.withLock { $0 } }
    private let listener: Int32
    private let upstream: Int
    private let relaying: Int
    private let count = Mutex(0)
    private let open = Mutex<[Int32]>([])

    /// Listens on a free port, relaying the first `relaying` connections to `127.0.0.1:upstream`.
    public init(upstream: Int, relaying: Int = 1) throws {
        self.upstream = upstream
        self.relaying = relaying
        (listener, port) = try LoopbackListener.open(backlog: 16)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops listening and closes every connection.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open.withLock({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            open.withLock { $0.append(client) }
            let relayed = count.withLock { count in
                count += 1
                return count <= relaying
            }
            guard relayed, let server = connectUpstream() else { continue }  // later ones: held, unanswered
            open.withLock { $0.append(server) }
            Thread.detachNewThread { Self.copy(from: client, to: server) }
            Thread.detachNewThread { Self.copy(from: server, to: client) }
        }
    }

    private func connectUpstream() -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(upstream).bigEndian)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        if connected { return fd }
        close(fd)
        return nil
    }

    private static func copy(from source: Int32, to destination: Int32) {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = read(source, &chunk, chunk.count)
            guard count > 0 else { break }
            var offset = 0
            while offset < count {
                let sent = chunk[offset..<count].withUnsafeBytes {
                    send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard sent > 0 else { return }
                offset += sent
            }
        }
        shutdown(destination, Int32(SHUT_WR))
    }
}
