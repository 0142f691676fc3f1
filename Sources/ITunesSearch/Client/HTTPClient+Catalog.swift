import AsyncHTTPClient
import Foundation
import NetworkBasics
import Synchronization

extension HTTPClient {
    /// The client catalog calls use by default: fails at once when the host refuses connections
    /// (the shared client would keep retrying until the deadline), follows a few redirects.
    ///
    /// A process-wide singleton like `HTTPClient.shared`, so it is never shut down.
    public static let catalog: HTTPClient = makeCatalogClient(trusting: .system, through: nil)

    /// The catalog client that trusts `roots` and goes through `proxy`: ``catalog`` for the
    /// system's roots and no proxy, else one made once for each in the process's life (never
    /// shut down, as ``catalog``).
    public static func catalog(trusting roots: TrustRoots, through proxy: ProxySettings.Server? = nil) -> HTTPClient {
        guard roots != .system || proxy != nil else { return catalog }
        return catalogClients.withLock { clients in
            let key = CatalogClientKey(roots: roots, proxy: proxy)
            if let client = clients[key] { return client }
            let client = makeCatalogClient(trusting: roots, through: proxy)
            clients[key] = client
            return client
        }
    }

    private struct CatalogClientKey: Hashable {
        var roots: TrustRoots
        var proxy: ProxySettings.Server?
    }

    private static let catalogClients = Mutex<[CatalogClientKey: HTTPClient]>([:])

    private static func makeCatalogClient(trusting roots: TrustRoots, through proxy: ProxySettings.Server?) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: roots.tlsConfiguration, redirectConfiguration: .follow(max: 5, allowCycles: false),
            timeout: .init(connect: .seconds(5), read: .seconds(15)))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.proxy = proxy.map(HTTPClientSet.proxy)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
