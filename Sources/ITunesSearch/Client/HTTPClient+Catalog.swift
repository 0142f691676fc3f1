import AsyncHTTPClient

extension HTTPClient {
    /// The client catalog calls use by default: fails at once when the host refuses connections
    /// (the shared client would keep retrying until the deadline), follows a few redirects.
    ///
    /// A process-wide singleton like `HTTPClient.shared`, so it is never shut down.
    public static let catalog: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 5, allowCycles: false),
            timeout: .init(connect: .seconds(5), read: .seconds(15)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
}
