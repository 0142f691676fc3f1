import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP socket on 127.0.0.1, on a free port: the raw-socket test servers' first step.
enum LoopbackListener {
    /// A listening descriptor and its port.
    static func open(backlog: Int32) throws -> (fd: Int32, port: Int) { try bound(listening: backlog) }

    /// A socket bound to a free port, listening with `backlog` unless it is `nil` (a port held
    /// that refuses connections), and its port.
    static func bound(listening backlog: Int32?) throws -> (fd: Int32, port: Int) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EMFILE) }
        if backlog != nil {
            var yes: Int32 = 1
            setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
                    && backlog.map { listen(socket, $0) == 0 } ?? true
            }
        }
        guard ready else {
            close(socket)
            throw POSIXError(.EADDRINUSE)
        }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
    }
}
