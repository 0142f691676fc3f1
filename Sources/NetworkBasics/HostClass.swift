/// Where a host name or address points, decided from the parsed address, not from its spelling:
/// `127.example.com` is a public name, `[::ffff:127.0.0.1]` is loopback, and so are `127.1`,
/// `2130706433` and `0x7f000001` (every IPv4 form the system's resolver accepts as an address).
/// A name is classified by how it is written; what it resolves to is ``NetworkReach``'s to check.
public enum HostClass: Sendable, Hashable {
    /// This machine: 127.0.0.0/8, ::1, `localhost` and names under `.localhost`.
    case loopback
    /// Any address of this machine (0.0.0.0, ::): a server bound there is reachable from the network.
    case unspecified
    /// The local network: RFC 1918 (10/8, 172.16/12, 192.168/16), carrier-grade NAT (100.64/10),
    /// link-local (169.254/16, fe80::/10), unique local (fc00::/7), 0/8, and `.local` names.
    case privateNetwork
    /// Anything else.
    case publicNetwork

    /// Classifies a host as it appears in a URL or a `--host` option (IPv6 with or without brackets).
    public init(_ host: String) {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        if let v4 = Self.numericIPv4(name) {
            self = Self.classify(v4)
        } else if let v6 = Self.ipv6(name) {
            self = Self.classify(v6)
        } else if name == "localhost" || name.hasSuffix(".localhost") {
            self = .loopback
        } else if name.hasSuffix(".local") {
            self = .privateNetwork
        } else {
            self = .publicNetwork
        }
    }

    private static func classify(_ a: [UInt8]) -> HostClass {
        switch (a[0], a[1]) {
        case (127, _): .loopback
        case (0, _): a.allSatisfy { $0 == 0 } ? .unspecified : .privateNetwork
        case (10, _), (192, 168), (169, 254), (172, 16...31), (100, 64...127): .privateNetwork
        default: .publicNetwork
        }
    }

    private static func classify(_ a: [UInt16]) -> HostClass {
        if a.allSatisfy({ $0 == 0 }) { return .unspecified }
        if a.dropLast().allSatisfy({ $0 == 0 }), a[7] == 1 { return .loopback }
        // IPv4-mapped (::ffff:a.b.c.d): the IPv4 address decides.
        if a[0..<5].allSatisfy({ $0 == 0 }), a[5] == 0xffff {
            return classify([UInt8(a[6] >> 8), UInt8(a[6] & 0xff), UInt8(a[7] >> 8), UInt8(a[7] & 0xff)])
        }
        if a[0] & 0xfe00 == 0xfc00 || a[0] & 0xffc0 == 0xfe80 { return .privateNetwork }
        return .publicNetwork
    }

    /// IPv4 as the system's resolver reads a numeric host (glibc's `inet_aton`, exact): one to
    /// four parts, each decimal, octal (`0` first) or hex (`0x` first, a digit after it), none
    /// past 2^32 - 1; the last part fills the bytes the others leave (`127.1` is 127.0.0.1).
    static func numericIPv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            guard let value = number(part) else { return nil }
            values.append(value)
        }
        guard values.dropLast().allSatisfy({ $0 <= 255 }), let last = values.last,
            last < UInt64(1) << (8 * UInt64(5 - parts.count))
        else { return nil }
        var address = last
        for (index, value) in values.dropLast().enumerated() { address |= value << (24 - 8 * UInt64(index)) }
        return [UInt8(address >> 24), UInt8(address >> 16 & 0xff), UInt8(address >> 8 & 0xff), UInt8(address & 0xff)]
    }

    /// One part of a numeric IPv4 address, as `strtoul` reads it after a leading digit; its
    /// digits only (no sign, no space), at most 2^32 - 1.
    private static func number(_ part: Substring) -> UInt64? {
        let bytes = Array(part.utf8)
        guard let first = bytes.first, isDigit(first, radix: 10) else { return nil }
        let (digits, radix): (ArraySlice<UInt8>, Int) =
            bytes.count > 2 && first == UInt8(ascii: "0") && (bytes[1] | 0x20) == UInt8(ascii: "x")
            ? (bytes[2...], 16) : first == UInt8(ascii: "0") ? (bytes[1...], 8) : (bytes[...], 10)
        guard digits.allSatisfy({ isDigit($0, radix: radix) }) else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            value = value * UInt64(radix) + UInt64(digitValue(digit))
            guard value <= 0xffff_ffff else { return nil }
        }
        return value
    }

    private static func isDigit(_ byte: UInt8, radix: Int) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0")) < radix
        case UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): radix == 16
        default: false
        }
    }

    private static func digitValue(_ byte: UInt8) -> Int {
        byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : Int((byte | 0x20) - UInt8(ascii: "a")) + 10
    }

    /// Dotted-quad IPv4 as `inet_pton` reads it (the tail of an IPv6 address): four decimal parts
    /// 0–255, no leading zeros.
    static func ipv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                part.count == 1 || !part.hasPrefix("0"), let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    /// IPv6 as `inet_pton` reads it (with `::` and a trailing dotted quad), eight 16-bit groups of
    /// one to four hex digits; a zone (`%eth0`) is ignored.
    static func ipv6(_ text: String) -> [UInt16]? {
        let address = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? text
        guard address.contains(":") else { return nil }
        var groups: [UInt16] = []
        var tail: [UInt16] = []
        let halves = address.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        // A dotted quad only ends the whole address.
        func parse(_ half: String, last: Bool) -> [UInt16]? {
            guard !half.isEmpty else { return [] }
            var result: [UInt16] = []
            let pieces = half.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if last, index == pieces.count - 1, piece.contains(".") {
                    guard let v4 = ipv4(String(piece)) else { return nil }
                    result += [UInt16(v4[0]) << 8 | UInt16(v4[1]), UInt16(v4[2]) << 8 | UInt16(v4[3])]
                } else {
                    guard (1...4).contains(piece.count), piece.allSatisfy(\.isHexDigit), piece.allSatisfy(\.isASCII),
                        let value = UInt16(piece, radix: 16)
                    else { return nil }
                    result.append(value)
                }
            }
            return result
        }
        guard let head = parse(halves[0], last: halves.count == 1) else { return nil }
        groups = head
        if halves.count == 2 {
            guard let end = parse(halves[1], last: true), head.count + end.count < 8 else { return nil }
            tail = end
            groups += Array(repeating: 0, count: 8 - head.count - end.count) + tail
        }
        return groups.count == 8 ? groups : nil
    }
}
