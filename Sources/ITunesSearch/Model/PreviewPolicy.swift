import Foundation

/// Which preview and artwork URLs a catalog may send HalfTunes to.
///
/// Only http(s) with a host and no user info; and a catalog on the public internet may not point
/// at this machine or the local network (a hostile or compromised catalog must not turn the
/// downloader against the user's router or metadata service). A catalog on this machine (the
/// DemoCatalog) may point at this machine.
public enum PreviewPolicy {
    /// Whether `url` may be fetched for a catalog at `catalogHost`.
    public static func allows(_ url: URL, catalogHost: String) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host?.lowercased(), !host.isEmpty, url.user == nil, url.password == nil
        else { return false }
        if isLocal(catalogHost.lowercased()) { return true }
        return !isLocal(host)
    }

    /// Loopback, link-local, private and unspecified addresses, and local names.
    static func isLocal(_ host: String) -> Bool {
        let host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host.hasSuffix(".localhost") || host.hasSuffix(".local") || host == "::1" || host == "::" {
            return true
        }
        if host.hasPrefix("fe80:") || host.hasPrefix("fc") || host.hasPrefix("fd") { return host.contains(":") }
        let parts = host.split(separator: ".").compactMap { UInt8($0) }
        guard parts.count == 4, host.split(separator: ".").count == 4 else { return false }
        switch (parts[0], parts[1]) {
        case (127, _), (10, _), (0, _), (169, 254), (192, 168): return true
        case (172, 16...31): return true
        case (100, 64...127): return true  // carrier-grade NAT
        default: return false
        }
    }
}
