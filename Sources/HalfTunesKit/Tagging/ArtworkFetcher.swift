import AsyncHTTPClient
import Foundation
import Logging
import MediaTags
import NIOCore
import NetworkBasics

/// Fetches tracks' cover art for their tags: the large rendition first (the store's image server
/// answers `…/600x600bb.jpg` for any `…/100x100bb.jpg`), else the URL the catalog gave; at most
/// 5 MiB, JPEG or PNG by their bytes, cached by URL in `<home>/cache/artwork`.
///
/// The catalog has already held its artwork URLs to the same rules as its previews (no user
/// info; a public catalog may not point at this machine or the local network); redirects are
/// not followed, so an image server cannot lead elsewhere. Any failure means no cover.
actor ArtworkFetcher {
    /// The largest image fetched.
    static let maximumBytes = 5 << 20

    /// Made at the first fetch (a service that never fetches has nothing to shut down).
    private var clients: HTTPClientSet?
    /// Set by ``shutdown()``: no client is made after it (a prefetch may still be on its way).
    private var isShutDown = false
    private let folder: URL
    private let logger: Logger
    private var inFlight: [URL: Task<Artwork?, Never>] = [:]
    /// URLs that gave no image in this process's life (not asked again; not cached on disk).
    private var missing: Set<URL> = []

    private let trustRoots: TrustRoots
    private let proxies: ProxySettings

    init(cacheFolder: URL, trustRoots: TrustRoots = .system, proxies: ProxySettings = .none, logger: Logger) {
        folder = cacheFolder
        self.trustRoots = trustRoots
        self.proxies = proxies
        self.logger = logger
    }

    /// The cover for an artwork URL, or `nil`. Tracks of one album asking at once share one fetch.
    func artwork(for url: URL) async -> Artwork? {
        if let cached = Self.cached(url, in: folder) { return cached }
        if missing.contains(url) { return nil }
        if let task = inFlight[url] { return await task.value }
        let task = Task { await self.fetchBest(url) }
        inFlight[url] = task
        let artwork = await task.value
        inFlight[url] = nil
        if let artwork {
            store(artwork, for: url)
        } else {
            missing.insert(url)
        }
        return artwork
    }

    /// Stops the HTTP client.
    func shutdown() async {
        isShutDown = true
        await clients?.shutdown()
        clients = nil
    }

    private func httpClient(for url: URL) throws -> HTTPClient {
        if let clients { return clients.client(for: url) }
        guard !isShutDown else { throw CancellationError() }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: trustRoots.tlsConfiguration, redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(5), read: .seconds(10)))
        // Covers are small and fetched while previews download: a batch asks for many at once.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 16
        let made = HTTPClientSet(configuration: configuration, proxies: proxies)
        clients = made
        return made.client(for: url)
    }

    /// The store's large rendition of an artwork URL (`…/100x100bb.jpg` → `…/600x600bb.jpg`), or
    /// `nil` when the URL does not follow that pattern.
    static func largeRendition(of url: URL) -> URL? {
        let name = url.lastPathComponent
        guard let x = name.firstIndex(of: "x"), name[..<x].allSatisfy(\.isNumber), !name[..<x].isEmpty else { return nil }
        let rest = name[name.index(after: x)...]
        guard let dot = rest.firstIndex(of: ".") else { return nil }
        let size = rest[..<dot]
        let sizeDigits = size.hasSuffix("bb") ? size.dropLast(2) : size[...]
        let ext = rest[rest.index(after: dot)...].lowercased()
        guard !sizeDigits.isEmpty, sizeDigits.allSatisfy(\.isNumber), ["jpg", "jpeg", "png"].contains(ext) else { return nil }
        let large = "600x600\(size.hasSuffix("bb") ? "bb" : "").\(ext)"
        guard large != name else { return nil }
        return url.deletingLastPathComponent().appendingPathComponent(large)
    }

    private func fetchBest(_ url: URL) async -> Artwork? {
        if let large = Self.largeRendition(of: url), let artwork = await fetch(large) { return artwork }
        return await fetch(url)
    }

    private func fetch(_ url: URL) async -> Artwork? {
        // A cover named by a public host stays on the public internet (see NetworkReach).
        if let host = url.host, HostClass(host) == .publicNetwork,
            let refusal = await NetworkReach.refusal(of: url, resolving: proxies.server(for: url) == nil)
        {
            logger.info("no artwork", metadata: ["url": "\(url)", "reason": "\(refusal)"])
            return nil
        }
        do {
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "User-Agent", value: "HalfTunes/1.0 (Linux)")
            let response = try await httpClient(for: url).execute(request, timeout: .seconds(15))
            guard response.status == .ok else {
                logger.info("no artwork", metadata: ["url": "\(url)", "status": "\(response.status.code)"])
                return nil
            }
            let body = try await response.body.collect(upTo: Self.maximumBytes)
            guard let artwork = Artwork(bytes: Array(buffer: body)) else {
                logger.info("artwork is neither JPEG nor PNG", metadata: ["url": "\(url)"])
                return nil
            }
            return artwork
        } catch {
            logger.info("no artwork", metadata: ["url": "\(url)", "error": "\(error)"])
            return nil
        }
    }

    private func store(_ artwork: Artwork, for url: URL) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(artwork.bytes).write(to: Self.cacheFile(url, in: folder), options: .atomic)
        } catch {
            logger.notice("cannot cache artwork", metadata: ["url": "\(url)", "error": "\(error)"])
        }
    }

    private static func cached(_ url: URL, in folder: URL) -> Artwork? {
        guard let data = try? Data(contentsOf: cacheFile(url, in: folder)), data.count <= maximumBytes else { return nil }
        return Artwork(bytes: Array(data))
    }

    /// A file named by two 64-bit FNV-1a hashes of the URL (128 bits: no two URLs share one).
    static func cacheFile(_ url: URL, in folder: URL) -> URL {
        func fnv(_ seed: UInt64) -> String {
            var hash = seed
            for byte in url.absoluteString.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
            let hex = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }
        return folder.appendingPathComponent(fnv(0xcbf2_9ce4_8422_2325) + fnv(0x8422_2325_cbf2_9ce4) + ".img")
    }
}
