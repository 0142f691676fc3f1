import AsyncHTTPClient
import Foundation
import NetworkBasics
import Testing

/// The clients of an `HTTPClientSet` outlive no owner: a set dropped without `shutdown()` (its
/// session never closed) shuts its clients down instead of ending the process, and a client asked
/// for after `shutdown()` fails its requests rather than running unowned.
@Suite("HTTP client sets")
struct HTTPClientSetTests {
    @Test("a set dropped without shutdown: the process goes on (AsyncHTTPClient would trap)")
    func droppedUnclosed() async throws {
        var set: HTTPClientSet? = HTTPClientSet(
            configuration: HTTPClient.Configuration(), proxies: ProxySettings(http: nil, https: nil))
        _ = set?.client(for: URL(string: "http://127.0.0.1:9/")!)
        _ = set?.client(for: URL(string: "http://127.0.0.1:9/")!, decompressing: true)
        // What is checked is that the process goes on: with the clients left running, the
        // set's deinit here traps (a mutation of Tests/mutations.tsv shows it).
        set = nil
    }

    @Test("a client asked for after shutdown refuses its requests: alreadyShutdown, nothing sent")
    func lateClient() async throws {
        let set = HTTPClientSet(configuration: HTTPClient.Configuration(), proxies: ProxySettings(http: nil, https: nil))
        await set.shutdown()
        let client = set.client(for: URL(string: "http://127.0.0.1:9/")!)
        await #expect(throws: HTTPClientError.alreadyShutdown) {
            _ = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:9/"), timeout: .seconds(5))
        }
    }
}
