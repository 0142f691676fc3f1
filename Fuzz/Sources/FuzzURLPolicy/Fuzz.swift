import Foundation
import FuzzSupport
import NetworkBasics

#if canImport(Glibc)
    import Glibc
#endif

/// libFuzzer entry: the URL policy against the system's own reading of addresses. The bytes are
/// lines: a URL a catalog handed over, the catalog's host, then addresses its host "resolved" to.
/// The system's resolver (getaddrinfo, numeric only: what a connection to that host would reach)
/// and a classifier of CIDR blocks written apart from HostClass are the oracle:
/// - a host the system reads as an address is classified as that address is;
/// - a host HostClass calls an address is one the system reads as an address;
/// - from a public catalog, no URL is allowed whose address (written, or resolved) is not public,
///   and a public one with public addresses is not refused.
func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let lines = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let first = lines.first, let url = URL(string: first) else { return 0 }
    if URLPolicy.problem(with: url) == nil {
        expect(["http", "https"].contains(url.scheme?.lowercased() ?? ""), "scheme \(url.scheme ?? "none")")
        expect(url.port.map { (1...65535).contains($0) } ?? true, "port \(url.port ?? 0)")
    }
    let source = lines.count > 1 ? lines[1] : "itunes.apple.com"
    let sourceIsPublic = Oracle.kind(of: source).map { $0 == .publicNetwork } ?? (HostClass(source) == .publicNetwork)
    guard let host = url.host, !host.isEmpty else { return 0 }
    let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    let reached = Oracle.kind(of: bare)
    if let reached { expect(HostClass(host) == reached, "\(host) is \(reached), HostClass says \(HostClass(host))") }
    if URLPolicy.isAddress(bare), !bare.contains("%") {
        expect(reached != nil, "\(host) is taken as an address the system does not read")
    }
    let resolved = lines.dropFirst(2).compactMap(Oracle.canonical)
    let refusal = URLPolicy.publicReachRefusal(of: url, resolvedTo: resolved)
    let anyNotPublic =
        (reached.map { $0 != .publicNetwork } ?? false)
        || resolved.contains { Oracle.kind(of: $0) != .publicNetwork }
    expect(
        (refusal != nil) == (anyNotPublic || HostClass(host) != .publicNetwork), "\(host) \(resolved): \(refusal ?? "allowed")")
    if sourceIsPublic, URLPolicy.mayFetch(url, from: source) {
        expect(reached.map { $0 == .publicNetwork } ?? true, "\(url) from \(source) reaches \(reached!)")
    }
    return 0
}

/// The system's reading of an address and where it points, from CIDR blocks.
enum Oracle {
    /// The address `host` names as the system reads it without resolving (nil: a name).
    static func address(_ host: String) -> [UInt8]? {
        guard !host.utf8.contains(0) else { return nil }
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let entry = list else { return nil }
        defer { freeaddrinfo(entry) }
        let address = entry.pointee.ai_addr!
        if entry.pointee.ai_family == AF_INET {
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) }
            }
        }
        return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
            withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) }
        }
    }

    /// The text getnameinfo gives for an address the system reads (what a resolution lists).
    static func canonical(_ host: String) -> String? {
        guard let bytes = address(host) else { return nil }
        var text = [CChar](repeating: 0, count: 64)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, 64) }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func kind(of host: String) -> HostClass? {
        if host.lowercased() == "localhost" { return .loopback }
        guard let bytes = address(host) else { return nil }
        if bytes.count == 16 {
            let words = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
            if words == [0, 0, 0, 0, 0, 0, 0, 0] { return .unspecified }
            if words == [0, 0, 0, 0, 0, 0, 0, 1] { return .loopback }
            if words[0..<6] == [0, 0, 0, 0, 0, 0xffff] { return v4(Array(bytes[12...])) }
            if words[0] >> 9 == 0xfc >> 1 || words[0] >> 6 == 0xfe80 >> 6 { return .privateNetwork }
            return .publicNetwork
        }
        return v4(bytes)
    }

    /// (prefix, length, kind), the first match wins.
    static let blocks: [(UInt32, UInt32, HostClass)] = [
        (0x0000_0000, 32, .unspecified), (0x7f00_0000, 8, .loopback), (0x0000_0000, 8, .privateNetwork),
        (0x0a00_0000, 8, .privateNetwork), (0xac10_0000, 12, .privateNetwork), (0xc0a8_0000, 16, .privateNetwork),
        (0xa9fe_0000, 16, .privateNetwork), (0x6440_0000, 10, .privateNetwork),
    ]

    static func v4(_ bytes: [UInt8]) -> HostClass {
        let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        for (prefix, length, kind) in blocks where value >> (32 - length) == prefix >> (32 - length) { return kind }
        return .publicNetwork
    }
}
