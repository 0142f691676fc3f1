import AsyncHTTPClient
import Foundation
import HalfTunesKit
import NIOCore
import NetworkBasics

extension RemoteDownloadControl {
    /// Asks the agent to serve the page where `request` says (`GET /api/page`), and holds it open.
    ///
    /// - Returns: Where the page answers, and a stream that ends when the agent lets the page go
    ///   (it ended). Ending the stream's iteration (cancelling it) hangs up: the agent closes the page.
    /// - Throws: ``DownloadError``: the agent's own (the port in use, say), or that it cannot be reached.
    public func openPage(_ request: PageRequest) async throws(DownloadError) -> (url: URL, held: AsyncStream<Void>) {
        var components = URLComponents()
        components.queryItems = [
            URLQueryItem(name: "host", value: request.host), URLQueryItem(name: "port", value: "\(request.port)"),
        ]
        var call = HTTPClientRequest(url: url.absoluteString + PageDocument.path + "?" + (components.percentEncodedQuery ?? ""))
        call.headers.add(name: "X-HalfTunes-Token", value: request.token)
        let response: HTTPClientResponse
        do { response = try await client.execute(call, timeout: .hours(24 * 365)) } catch {
            throw DownloadError(.upstreamFailure, "cannot reach \(name): \(error)")
        }
        try await check(response)
        let (first, firstFeed) = AsyncStream<URL?>.makeStream()
        let (held, heldFeed) = AsyncStream<Void>.makeStream()
        let reading = Task {
            defer { heldFeed.finish() }
            var line = Data()
            var announced = false
            do {
                for try await buffer in response.body where !announced {
                    line += Data(buffer.readableBytesView)
                    guard let end = line.firstIndex(of: UInt8(ascii: "\n")) else { continue }
                    firstFeed.yield(try? JSONInput.decode(PageDocument.self, from: line[..<end]).url)
                    firstFeed.finish()
                    announced = true
                }
            } catch {}
            firstFeed.finish()
        }
        heldFeed.onTermination = { _ in reading.cancel() }
        var iterator = first.makeAsyncIterator()
        guard let url = await iterator.next() ?? nil else {
            reading.cancel()
            throw DownloadError(.upstreamFailure, "\(name) did not say where the page answers")
        }
        return (url, held)
    }
}
