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
