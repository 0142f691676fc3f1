import Foundation

/// Which URLs HalfTunes will fetch, decided in one place.
public enum URLPolicy {
    /// Why a URL is refused, `nil` when it is an http(s) URL with a host.
    public static func problem(with url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased() else { return "it has no scheme" }
        guard scheme == "http" || scheme == "https" else { return "only http and https are supported, not \(scheme)" }
        guard let host = url.host, !host.isEmpty else { return "it has no host" }
        if let port = url.port, !(1...65535).contains(port) { return "its port \(port) is not a port (1 to 65535)" }
        return nil
    }

    /// Whether a string is an http(s) URL with a host.
    public static func isWebURL(_ string: String) -> Bool { webURL(string) != nil }

    /// The http(s) URL with a host a string spells, `nil` for anything else.
    public static func webURL(_ string: String) -> URL? {
        guard let url = URL(string: string), problem(with: url) == nil else { return nil }
        return url
    }

    /// Whether a URL that a remote source (a catalog at `sourceHost`) handed over may be fetched:
    /// an http(s) URL with a host and no user info; and a source on the public internet may not
    /// point at this machine or the local network (a hostile catalog must not turn the downloader
    /// against the user's router). A source on this machine may point at this machine.
    public static func mayFetch(_ url: URL, from sourceHost: String) -> Bool {
        mayFetch(url, fromSourceIn: HostClass(sourceHost))
    }

    /// ``mayFetch(_:from:)`` for a source whose host is classified already (the URLs of one answer
    /// share their source: a lookup of 200 tracks classifies its host once, not 200 times).
    public static func mayFetch(_ url: URL, fromSourceIn source: HostClass) -> Bool {
        guard problem(with: url) == nil, url.user == nil, url.password == nil, let host = url.host else { return false }
        if source != .publicNetwork { return true }
        return HostClass(host) == .publicNetwork
    }

    /// Why a request that began at a public host may not fetch `url`, given the addresses its host
    /// resolved to (none when it was not resolved): one line naming the host and the address, or
    /// `nil`. Pure: ``NetworkReach`` resolves, this decides.
    public static func publicReachRefusal(of url: URL, resolvedTo addresses: [String]) -> String? {
        guard let host = url.host, !host.isEmpty else { return "\(url.absoluteString) has no host" }
        let spelled = HostClass(host)
        if spelled != .publicNetwork { return "refused \(host): \(place(spelled)), and the request began on the public internet" }
        guard let (address, kind) = addresses.lazy.map({ ($0, HostClass($0)) }).first(where: { $0.1 != .publicNetwork })
        else { return nil }
        return "refused \(host): it resolves to \(address), \(place(kind)), and the request began on the public internet"
    }

    /// Whether `host` is written as an address (no resolution needed): IPv4 as the resolver reads
    /// it, or IPv6 (with or without brackets).
    public static func isAddress(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return HostClass.numericIPv4(bare) != nil || HostClass.ipv6(bare) != nil
    }

    private static func place(_ kind: HostClass) -> String {
        switch kind {
        case .loopback: "on this machine"
        case .unspecified: "any address of this machine"
        case .privateNetwork: "on the local network"
        case .publicNetwork: "on the public internet"
        }
    }
}
