import AsyncHTTPClient
import Foundation
import HalfTunesKit
import ITunesSearch
import NIOCore
import NIOHTTP1

/// Talks to a running `halftunes serve` through its API, as the page does (same origin, with its token).
struct ServerClient: Sendable {
    let info: ServerInfo

    /// Sends a request; returns the body, or throws the server's error message.
    @discardableResult
    func send(_ method: HTTPMethod, _ path: String) async throws -> Data {
        var request = HTTPClientRequest(url: info.url.absoluteString + path)
        request.method = method
        request.headers.add(name: "Origin", value: info.url.absoluteString)
        request.headers.add(name: "X-HalfTunes-Token", value: info.token)
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        } catch {
            throw Failure("cannot reach halftunes serve at \(info.url) (process \(info.pid)): \(error)")
        }
        let body = Data(try await response.body.collect(upTo: 16 << 20).readableBytesView)
        guard (200..<300).contains(response.status.code) else {
            let message = (try? JSONDecoder().decode([String: String].self, from: body))?["error"]
            throw Failure(message ?? "halftunes serve answered HTTP \(response.status.code)")
        }
        return body
    }

    /// Sends a request answered by one track's status.
    func status(_ method: HTTPMethod, _ path: String) async throws -> DownloadStatus {
        try JSONDecoder().decode(TrackItem.self, from: try await send(method, path)).status
    }

    /// Downloads in flight and the library.
    func listing() async throws -> (downloads: [DownloadStatus], library: [DownloadStatus]) {
        let listing = try JSONDecoder().decode([String: [TrackItem]].self, from: try await send(.GET, "/api/downloads"))
        return ((listing["downloads"] ?? []).map(\.status), (listing["library"] ?? []).map(\.status))
    }

    /// Shows downloads started through the server until they end; Ctrl-C stops watching only.
    func follow(json: Bool, start: () async throws -> [DownloadStatus]) async throws {
        try await ForegroundDownloads.run(events: try await events(), json: json, start: start) { _ in
            "Still downloading in halftunes serve (process \(info.pid)); `halftunes list` shows how far."
        }
    }

    /// The server's live events. Returns once the server has subscribed this client (its answer's
    /// head has arrived), so nothing that happens after the call is missed.
    func events() async throws -> AsyncStream<DownloadEvent> {
        let (stream, continuation) = AsyncStream<DownloadEvent>.makeStream()
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(HTTPClientRequest(url: info.url.absoluteString + "/api/events"), timeout: .seconds(30))
        } catch {
            throw Failure("cannot reach halftunes serve at \(info.url) (process \(info.pid)): \(error)")
        }
        let task = Task {
            defer { continuation.finish() }
            var pending = ""
            do {
                for try await buffer in response.body {
                    pending += String(buffer: buffer)
                    while let end = pending.range(of: "\n\n") {
                        let block = pending[..<end.lowerBound]
                        pending.removeSubrange(..<end.upperBound)
                        for line in block.split(separator: "\n") where line.hasPrefix("data: ") {
                            if let event = try? JSONDecoder().decode(EventItem.self, from: Data(line.dropFirst(6).utf8)).event {
                                continuation.yield(event)
                            }
                        }
                    }
                }
            } catch {}
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
