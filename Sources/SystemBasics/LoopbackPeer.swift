import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Who is on the other end of a TCP connection made on this machine: the kernel's socket tables
/// (`/proc/net/tcp`, `/proc/net/tcp6`) name the user that owns each socket, so a server can tell
/// its own user's connections from another user's, as `identd` does, with nothing the client
/// sends.
public enum LoopbackPeer {
    /// One end of a connection: its address's bytes (4 or 16, network order) and port.
    public struct End: Sendable, Hashable {
        /// The address, 4 bytes (IPv4) or 16 (IPv6), in network order.
        public var address: [UInt8]
        /// The port.
        public var port: Int

        /// The end at `address`:`port`.
        public init(address: [UInt8], port: Int) {
            self.address = address
            self.port = port
        }

        /// The IPv4 end an IPv4-mapped IPv6 one (`::ffff:a.b.c.d`) stands for.
        var unmapped: End? {
            guard address.count == 16, address.prefix(10).allSatisfy({ $0 == 0 }), address[10] == 0xff, address[11] == 0xff
            else { return nil }
            return End(address: Array(address.suffix(4)), port: port)
        }

        /// As the kernel's table writes it: each 32-bit word of the address in hex as the
        /// machine stores it, a colon, the port in hex.
        var procText: String {
            let words = stride(from: 0, to: address.count, by: 4).map { start in
                address[start..<min(start + 4, address.count)].reversed().map { String(format: "%02X", $0) }.joined()
            }
            return words.joined() + ":" + String(format: "%04X", port)
        }
    }

    /// What the kernel's table says of a connection.
    public enum Owner: Sendable, Equatable {
        /// The user owning the client's socket.
        case user(uid_t)
        /// The table lists no such connection (it has ended already).
        case unlisted
        /// There is no table to read (not Linux, or `/proc` not mounted).
        case unknown
    }

    /// Who owns the client socket `peer` connected to `local` (this server's end).
    public static func owner(of peer: End, connectedTo local: End) -> Owner {
        let table = peer.address.count == 4 ? "/proc/net/tcp" : "/proc/net/tcp6"
        guard let text = readWhole(table) else { return .unknown }
        if let uid = owner(of: peer, connectedTo: local, inTable: text) { return .user(uid) }
        // An IPv4 client of a dual-stack server: the server sees `::ffff:a.b.c.d`, the client's
        // socket is listed among the IPv4 ones.
        if let peer4 = peer.unmapped, let local4 = local.unmapped, let text4 = readWhole("/proc/net/tcp"),
            let uid = owner(of: peer4, connectedTo: local4, inTable: text4)
        {
            return .user(uid)
        }
        return .unlisted
    }

    /// The whole of a kernel table, read to its end: its size shows as 0, and Foundation's
    /// readers stop short of a table with thousands of sockets.
    static func readWhole(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes.append(contentsOf: chunk[..<count])
        }
    }

    /// ``owner(of:connectedTo:)`` over the text of a table.
    static func owner(of peer: End, connectedTo local: End, inTable text: String) -> uid_t? {
        let (wantedLocal, wantedRemote) = (peer.procText, local.procText)
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, fields[1] == wantedLocal, fields[2] == wantedRemote else { continue }
            return uid_t(fields[7])
        }
        return nil
    }
}
