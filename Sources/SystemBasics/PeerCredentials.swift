import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Who is at the other end of a connected Unix domain socket, as the kernel recorded it when the
/// connection was made (`SO_PEERCRED`): Linux's `struct ucred`, laid out the same.
public struct PeerCredentials: Sendable, Hashable {
    /// The peer's process.
    public var pid: Int32
    /// Its effective user.
    public var uid: UInt32
    /// Its effective group.
    public var gid: UInt32

    /// `SO_PEERCRED`'s option name.
    public static let option: Int32 = 17

    /// No one (all zeros), to be filled by `getsockopt`.
    public init() { (pid, uid, gid) = (0, 0, 0) }

    /// The credentials of `fd`'s peer; `nil` when the kernel cannot say (not a Unix socket).
    public static func of(socket fd: Int32) -> PeerCredentials? {
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, option, &credentials, &length) == 0,
            length == MemoryLayout<PeerCredentials>.size
        else { return nil }
        return credentials
    }
}

extension PeerCredentials {
    /// What connecting to a Unix socket found.
    public enum Probe: Sendable, Equatable {
        /// No socket file, or a path too long for one.
        case absent
        /// A socket file nobody listens on.
        case refused
        /// A listener answered: its credentials.
        case answered(PeerCredentials)
    }

    /// The most bytes of a socket's path (`sun_path` less its final zero).
    public static let maximumSocketPathBytes = 107

    /// Connects to the socket at `path`, reads who listens (`SO_PEERCRED`) and hangs up.
    public static func probe(socketAt path: String) -> Probe {
        guard FileManager.default.fileExists(atPath: path) else { return .absent }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .absent }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= maximumSocketPathBytes else { return .absent }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
        guard connected else { return errno == ECONNREFUSED ? .refused : .absent }
        return of(socket: fd).map { .answered($0) } ?? .refused
    }
}
