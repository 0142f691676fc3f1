import Foundation
import NetworkBasics
import Testing

@testable import SystemBasics

#if canImport(Glibc)
    import Glibc
#endif

/// Who owns the other end of a connection on this machine, read from the kernel's socket table.
@Suite struct LoopbackPeerTests {
    private let table = """
          sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
           0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0
           1: 0100007F:C350 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 65534        0 2 1 0 20 4 30 10 -1
           2: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0 20 4 30 10 -1
        """

    @Test("an end is written as the kernel's table writes it: each address word as stored, then the port, in hex")
    func procText() {
        #expect(LoopbackPeer.End(address: [127, 0, 0, 1], port: 8080).procText == "0100007F:1F90")
        #expect(
            LoopbackPeer.End(address: [UInt8](repeating: 0, count: 15) + [1], port: 443).procText
                == "00000000000000000000000001000000:01BB")
    }

    @Test("the owner is the uid of the client's row (its end local, the server's remote), not the server's")
    func ownerFromTable() {
        let client = LoopbackPeer.End(address: [127, 0, 0, 1], port: 50000)
        let server = LoopbackPeer.End(address: [127, 0, 0, 1], port: 8080)
        #expect(LoopbackPeer.owner(of: client, connectedTo: server, inTable: table) == 65534)
        #expect(LoopbackPeer.owner(of: server, connectedTo: client, inTable: table) == 0)
        #expect(LoopbackPeer.owner(of: .init(address: [127, 0, 0, 1], port: 50001), connectedTo: server, inTable: table) == nil)
        #expect(LoopbackPeer.owner(of: client, connectedTo: server, inTable: "garbage\n1: x") == nil)
    }

    @Test("loopback, as the server reads a peer's address (HostClass): 127.0.0.0/8, ::1 and ::ffff:127.x.y.z; nothing else")
    func loopback() {
        #expect(HostClass("127.1.2.3") == .loopback)
        #expect(HostClass("10.0.0.1") != .loopback)
        #expect(HostClass("::1") == .loopback)
        #expect(HostClass("::ffff:127.0.0.1") == .loopback)
        #expect(HostClass("::ffff:10.0.0.1") != .loopback)
        #expect(HostClass("") != .loopback)
    }

    @Test("a real connection on 127.0.0.1, among 1,500 others: the kernel's table names this process's user as its owner")
    func realConnection() throws {
        // A crowded table (hundreds of KB, as beside a busy test run): read to its end.
        DescriptorLimit.raiseToHard()
        var crowd: [Int32] = []
        defer { crowd.forEach { close($0) } }
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        try #require(bound && listen(listener, 4096) == 0)
        for _ in 0..<1500 {
            let extra = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let joined = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(extra, $0, length) }
            }
            guard joined == 0 else {
                close(extra)
                break
            }
            crowd.append(extra)
            let accepted = accept(listener, nil, nil)
            if accepted >= 0 { crowd.append(accepted) }
        }
        #expect(crowd.count >= 2000, "only \(crowd.count) sockets for the crowd")
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) }
        }
        try #require(connected == 0)
        var mine = sockaddr_in()
        var mineLength = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &mine) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client, $0, &mineLength) }
        }
        let peer = LoopbackPeer.End(address: [127, 0, 0, 1], port: Int(UInt16(bigEndian: mine.sin_port)))
        let server = LoopbackPeer.End(address: [127, 0, 0, 1], port: Int(UInt16(bigEndian: address.sin_port)))
        #expect(LoopbackPeer.owner(of: peer, connectedTo: server) == .user(geteuid()))
    }
}
