import Foundation

/// Where a page is to be served, and the secret its requests carry.
public struct PageRequest: Sendable, Hashable {
    /// The address to listen on.
    public var host: String
    /// The port (0: any free one).
    public var port: Int
    /// The page's request token: chosen by whoever asks for the page, so that it outlives an
    /// agent that restarts (the tabs keep theirs).
    public var token: String

    /// A page on `host`:`port` whose requests carry `token`.
    public init(host: String, port: Int, token: String = PageRequest.makeToken()) {
        self.host = host
        self.port = port
        self.token = token
    }
}

extension PageRequest {
    /// A random token for one page's life: 32 random bytes in hex.
    public static func makeToken() -> String {
        (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}

/// What the agent's `GET /api/page` sends first: where the page answers.
public struct PageDocument: Codable, Sendable, Hashable {
    /// The agent's route that serves a page while its asker holds the request open.
    public static let path = "/api/page"

    /// The URL to open.
    public var url: URL

    /// A document naming `url`.
    public init(url: URL) { self.url = url }
}
