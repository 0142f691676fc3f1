import AsyncHTTPClient
import Foundation
import Synchronization

/// The HTTP clients of one user of the network, one per proxy its requests go through (and one
/// for those that go direct), each made from the same configuration when first needed: an
/// `HTTPClient` has one proxy for all its requests, and `no_proxy` asks for a choice per host.
public final class HTTPClientSet: Sendable {
    private let configuration: HTTPClient.Configuration
    /// The proxies requests go through.
    public let proxies: ProxySettings
    private let clients = Mutex<(made: [Key: HTTPClient], shutDown: Bool)>(([:], false))

    private struct Key: Hashable {
        let server: ProxySettings.Server?
        let decompressing: Bool
    }

    /// Clients made from `configuration` (its own proxy setting replaced), on NIO's shared loops.
    public init(configuration: HTTPClient.Configuration, proxies: ProxySettings) {
        self.configuration = configuration
        self.proxies = proxies
    }

    /// The client for a request to `url`; `decompressing`, one that asks for gzip and deflate
    /// and decodes them (its own connections: downloads keep the bytes as served, for ranges).
    public func client(for url: URL, decompressing: Bool = false) -> HTTPClient {
        client(through: proxies.server(for: url), decompressing: decompressing)
    }

    /// The client for a request to `url` (text), parsed only when there are proxies to choose from.
    public func client(for url: String) -> HTTPClient {
        guard proxies.http != nil || proxies.https != nil, let parsed = URL(string: url) else { return client(through: nil) }
        return client(for: parsed)
    }

    /// After ``shutdown()``, a client asked for (by a request that was on its way) is made shut
    /// down: its requests fail at once with `HTTPClientError.alreadyShutdown`.
    private func client(through server: ProxySettings.Server?, decompressing: Bool = false) -> HTTPClient {
        let (client, late) = clients.withLock { clients -> (HTTPClient, Bool) in
            let key = Key(server: server, decompressing: decompressing)
            if let client = clients.made[key] { return (client, false) }
            var configuration = configuration
            configuration.proxy = server.map(Self.proxy)
            if decompressing { configuration.decompression = .enabled(limit: .none) }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            if clients.shutDown { return (client, true) }
            clients.made[key] = client
            return (client, false)
        }
        // Not syncShutdown: this may run on an event loop, which that would wait on for ever.
        if late { client.shutdown { _ in } }
        return client
    }

    /// A set dropped without ``shutdown()`` (its owner was never closed) shuts its clients down
    /// as it goes, instead of leaving them to end the process (AsyncHTTPClient traps on a client
    /// deinitialized while running).
    deinit {
        let left = clients.withLock { $0.made.values }
        for client in left { client.shutdown { _ in } }
    }

    /// Shuts every client down.
    public func shutdown() async {
        let all = clients.withLock { clients in
            defer { clients = ([:], true) }
            return Array(clients.made.values)
        }
        for client in all { try? await client.shutdown() }
    }

    /// AsyncHTTPClient's proxy setting for a server.
    public static func proxy(_ server: ProxySettings.Server) -> HTTPClient.Configuration.Proxy {
        switch server.kind {
        case .socks5: return .socksServer(host: server.host, port: server.port)
        case .http:
            let authorization = server.credentials.map {
                HTTPClient.Authorization.basic(credentials: Data($0.utf8).base64EncodedString())
            }
            return .server(host: server.host, port: server.port, authorization: authorization)
        }
    }
}
