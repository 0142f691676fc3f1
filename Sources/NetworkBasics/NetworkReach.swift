import Foundation
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where a request that began on the public internet may go: only to public addresses, at every
/// redirect hop and after name resolution. A hostile server (or catalog) must not turn a
/// downloader against this machine or the local network with a redirect to `127.0.0.1`, a
/// numeric spelling such as `2130706433`, or a public-looking name that resolves to a private
/// address.
///
/// Resolution is checked before the connection is made, so a name whose answer changes between
/// the check and the connection (DNS rebinding) is not caught; the client's own resolution
/// decides then. Through a proxy nothing is resolved here: the proxy connects.
public enum NetworkReach {
    /// Why a request that began at a public host may not fetch `url`, in one line naming the host;
    /// `nil` when it may.
    ///
    /// - Parameter resolving: Whether to resolve the host's name and check every address it has
    ///   (false when the request goes through a proxy).
    public static func refusal(of url: URL, resolving: Bool) async -> String? {
        if let refusal = URLPolicy.publicReachRefusal(of: url, resolvedTo: []) { return refusal }
        guard resolving, let host = url.host, !URLPolicy.isAddress(host) else { return nil }
        let addresses = await addresses(of: host)
        return URLPolicy.publicReachRefusal(of: url, resolvedTo: addresses)
    }

    /// Recent resolutions: a batch of previews from one host resolves it once.
    private static let recent = Mutex<[String: (addresses: [String], at: ContinuousClock.Instant)]>([:])
    private static let remembered = Duration.seconds(30)

    /// The addresses `host` resolves to (none when the name does not resolve: the connection then
    /// fails and says so), remembered for a while.
    static func addresses(of host: String) async -> [String] {
        let now = ContinuousClock.now
        if let known = recent.withLock({ $0[host] }), now - known.at < remembered { return known.addresses }
        let addresses = await withCheckedContinuation { continuation in
            // getaddrinfo blocks: off Swift's concurrency threads.
            NIOThreadPool.singleton.submit { _ in continuation.resume(returning: resolve(host)) }
        }
        recent.withLock { recent in
            if recent.count > 256 { recent.removeAll() }
            recent[host] = (addresses, now)
        }
        return addresses
    }

    /// The addresses `host` resolves to, in text.
    private static func resolve(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(
                current.pointee.ai_addr, current.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0
            {
                addresses.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}
