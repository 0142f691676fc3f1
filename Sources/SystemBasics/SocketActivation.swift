import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The listening sockets systemd hands a socket-activated service (`sd_listen_fds(3)`'s
/// protocol): descriptors from 3 on, counted by `LISTEN_FDS`, meant for the process named by
/// `LISTEN_PID` — so a child, whose pid differs, never takes them for its own.
public enum SocketActivation {
    /// The first descriptor passed (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: Int32 = 3

    /// The descriptors `environment` passes to process `pid`: empty when it passes none, or
    /// when they are meant for another process.
    public static func passedDescriptors(environment: [String: String], pid: Int32) -> Range<Int32> {
        guard let target = environment["LISTEN_PID"].flatMap({ Int32($0) }), target == pid,
            let count = environment["LISTEN_FDS"].flatMap({ Int32($0) }), count > 0, count < 1024
        else { return firstDescriptor..<firstDescriptor }
        return firstDescriptor..<(firstDescriptor + count)
    }

    /// The Unix stream socket listening at `path` that systemd passed to this process, made
    /// close-on-exec and listened on again (so `SO_PEERCRED` names this process to its clients,
    /// not the manager that bound it); `nil` when none was passed.
    ///
    /// - Throws: ``SocketActivationError`` when descriptors were passed but none of them is a
    ///   Unix stream socket listening at `path` (a unit whose `ListenStream=` names another path).
    public static func listener(
        at path: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SocketActivationError) -> Int32? {
        let passed = passedDescriptors(environment: environment, pid: getpid())
        guard !passed.isEmpty else { return nil }
        var found: [String] = []
        for fd in passed {
            guard let bound = listeningPath(of: fd) else { continue }
            guard bound == path else {
                found.append(bound)
                continue
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            guard listen(fd, SOMAXCONN) == 0 else {
                throw SocketActivationError(
                    "cannot listen on the socket systemd passed (\(path)): \(String(cString: strerror(errno)))")
            }
            return fd
        }
        let seen =
            found.isEmpty
            ? "not a listening Unix stream socket"
            : "\(passed.count == 1 ? "it listens" : "they listen") on \(found.joined(separator: ", "))"
        throw SocketActivationError(
            "systemd passed \(passed.count) socket\(passed.count == 1 ? "" : "s"), but \(seen); the agent listens on \(path)")
    }

    /// The path a listening Unix stream socket is bound to; `nil` for anything else.
    static func listeningPath(of fd: Int32) -> String? {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        guard option(SO_TYPE) == Int32(SOCK_STREAM.rawValue), option(SO_ACCEPTCONN) == 1 else { return nil }
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard named, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        return withUnsafeBytes(of: address.sun_path) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// Why the sockets systemd passed cannot be used, in one line.
public struct SocketActivationError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
