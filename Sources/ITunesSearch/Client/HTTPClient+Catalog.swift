import AsyncHTTPClient
import NetworkBasics
import Synchronization

extension HTTPClient {
    /// The client catalog calls use by default: fails at once when the host refuses connections
    /// (the shared client would keep retrying until the deadline), follows a few redirects.
    ///
    /// A process-wide singleton like `HTTPClient.shared`, so it is never shut down.
    public static let catalog: HTTPClient = makeCatalogClient(trusting: .system)

    /// The catalog client that trusts `roots`: ``catalog`` for the system's alone, else one made
    /// once per set of roots in the process's life (never shut down, as ``catalog``).
    public static func catalog(trusting roots: TrustRoots) -> HTTPClient {
        guard roots != .system else { return catalog }
        return catalogClients.withLock { clients in
            if let client = clients[roots] { return client }
            let client = makeCatalogClient(trusting: roots)
            clients[roots] = client
            return client
        }
    }

    private static let catalogClients = Mutex<[TrustRoots: HTTPClient]>([:])

    private static func makeCatalogClient(trusting roots: TrustRoots) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: roots.tlsConfiguration, redirectConfiguration: .follow(max: 5, allowCycles: false),
            timeout: .init(connect: .seconds(5), read: .seconds(15)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
