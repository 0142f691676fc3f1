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
    private let clients = Mutex<[Key: HTTPClient]>([:])

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

    private func client(through server: ProxySettings.Server?, decompressing: Bool = false) -> HTTPClient {
        clients.withLock { clients in
            let key = Key(server: server, decompressing: decompressing)
            if let client = clients[key] { return client }
            var configuration = configuration
            configuration.proxy = server.map(Self.proxy)
            if decompressing { configuration.decompression = .enabled(limit: .none) }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[key] = client
            return client
        }
    }

    /// Shuts every client down.
    public func shutdown() async {
        let all = clients.withLock { clients in
            defer { clients.removeAll() }
            return Array(clients.values)
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
