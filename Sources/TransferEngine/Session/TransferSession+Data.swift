import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NetworkBasics

/// The head of a response to a ``TransferSession/dataRequest(url:method:headers:body:timeout:decompressing:hops:)``.
package struct DataResponseHead: Sendable {
    /// The HTTP status.
    package var status: Int
    /// The header fields, in order.
    package var headers: [(name: String, value: String)]
}

/// A response's body, piece by piece, with failures as ``TransferError``s.
package struct DataResponseBody: AsyncSequence, Sendable {
    package typealias Element = Data
    let body: HTTPClientResponse.Body
    /// The URL that answered (the last hop's).
    package let url: URL
    let stallTimeout: Duration

    package struct AsyncIterator: AsyncIteratorProtocol {
        var inner: HTTPClientResponse.Body.AsyncIterator
        let url: URL
        let stallTimeout: Duration

        package mutating func next() async throws -> Data? {
            do { return try await inner.next().map { Data($0.readableBytesView) } } catch {
                throw await TransferSession.dataError(error, url: url, stallTimeout: stallTimeout)
            }
        }
    }

    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(inner: body.makeAsyncIterator(), url: url, stallTimeout: stallTimeout)
    }
}

/// What a data request sends: bytes, or a file's read afresh for each hop that sends a body
/// (a 307 or 308 sends it again).
package enum DataRequestBody: Sendable {
    case bytes(Data)
    case file(URL)
}

/// What a data request's caller says and hears at each hop of a redirect chain.
package struct DataHops: Sendable {
    /// Header fields for the request to a URL (cookies), asked before each hop.
    package var fields: @Sendable (URL) async -> [(name: String, value: String)] = { _ in [] }
    /// Told of each response head, the redirects' included, with the URL that answered.
    package var received: @Sendable (DataResponseHead, URL) async -> Void = { _, _ in }
    /// Asked before each redirect is followed, with the 3xx head, its URL and the next: `true`
    /// follows it, `false` answers the 3xx itself (its body as the body). `nil`: always follow.
    package var redirect: (@Sendable (DataResponseHead, URL, URL) async -> Bool)?
    /// Told as the body goes out: the bytes of this piece, all sent so far in this hop, and the
    /// body's size.
    package var sent: @Sendable (Int64, Int64, Int64) -> Void = { _, _, _ in }
    /// Asked of a 401 with the head, its URL and the request's method: header fields to send the
    /// request again with (an `Authorization`), `nil` to answer with the 401. Throwing ends the
    /// request with that error. `nil`: every 401 is the answer.
    package var authorize:
        (@Sendable (DataResponseHead, URL, String) async throws(TransferError) -> [(name: String, value: String)]?)?

    package init() {}
}

extension TransferSession {
    /// One request answered in memory, not a transfer: over the session's HTTP clients (its
    /// connections, proxies, trust roots and per-host limit), never journaled, never retried.
    /// The body is read as the caller iterates it (not reading holds the connection back).
    ///
    /// - Parameters:
    ///   - decompressing: Ask for gzip and deflate (unless `headers` name an `Accept-Encoding`)
    ///     and decode the body; the head keeps the server's `Content-Encoding` and length.
    ///   - hops: What the caller adds to each hop and hears of it (cookies, redirects, progress).
    /// - Throws: ``TransferError`` saying why the request got no response (the server is
    ///   unreachable, its certificate untrusted, no head within `timeout`…).
    package func dataRequest(
        url: URL, method: String, headers: [String: String], body: DataRequestBody?, timeout: Duration,
        decompressing: Bool = false, hops: DataHops = DataHops()
    ) async throws(TransferError) -> (head: DataResponseHead, body: DataResponseBody) {
        var current = url
        var method = method.uppercased()
        var headers = headers
        var body = body
        var trail = RedirectTrail(maxRedirects: configuration.maxRedirects)
        var challenges = 0
        let confined = configuration.keepsPublicTransfersPublic && url.host.map { HostClass($0) == .publicNetwork } == true
        while true {
            try Self.validate(current)
            if confined,
                let refusal = await NetworkReach.refusal(of: current, resolving: clients.proxies.server(for: current) == nil)
            {
                throw TransferError(.invalidURL, refusal, permanent: true)
            }
            var request = HTTPClientRequest(url: current.absoluteString)
            request.method = HTTPMethod(rawValue: method)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            for (name, value) in await hops.fields(current) { request.headers.add(name: name, value: value) }
            if let body { request.body = try Self.requestBody(body, sent: hops.sent) }
            let response = try await send(request, to: current, timeout: timeout, decompressing: decompressing)
            let status = Int(response.status.code)
            let head = DataResponseHead(status: status, headers: response.headers.map { (name: $0.name, value: $0.value) })
            await hops.received(head, current)
            let answer = (head, DataResponseBody(body: response.body, url: current, stallTimeout: configuration.stallTimeout))
            if status == 401, let authorize = hops.authorize, challenges < Self.maxChallenges,
                let fields = try await authorize(head, current, method)
            {
                // Asked again with the answer: the 401's body is read and dropped, as a redirect's.
                _ = try? await response.body.collect(upTo: 1 << 20)
                challenges += 1
                headers = headers.filter { $0.key.lowercased() != "authorization" }
                for (name, value) in fields { headers[name] = value }
                continue
            }
            guard [301, 302, 303, 307, 308].contains(status), let location = response.headers.first(name: "Location"),
                !location.isEmpty
            else { return answer }
            let next: URL
            switch trail.next(from: current.absoluteString, location: location) {
            case .success(let text): next = URL(string: text) ?? current
            case .failure(let error): throw error
            }
            if let redirect = hops.redirect, await !redirect(head, current, next) { return answer }
            // A redirect's own body is read and dropped (the connection is then free for the next hop).
            _ = try? await response.body.collect(upTo: 1 << 20)
            // 303, and 301 or 302 after a POST, become a GET without a body, as browsers and Foundation do.
            if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
                method = "GET"
                body = nil
                headers = headers.filter { !["content-type", "content-length"].contains($0.key.lowercased()) }
            }
            // Credentials meant for one host go to no other.
            if next.host?.lowercased() != current.host?.lowercased() {
                headers = headers.filter { !["authorization", "cookie"].contains($0.key.lowercased()) }
            }
            current = next
        }
    }

    /// The most 401s one data request answers before the last is its answer.
    static let maxChallenges = 50

    /// One request of ``dataRequest(url:method:headers:body:timeout:decompressing:hops:)``: one hop.
    private func send(
        _ request: HTTPClientRequest, to url: URL, timeout: Duration, decompressing: Bool
    ) async throws(TransferError) -> HTTPClientResponse {
        do {
            let (seconds, attoseconds) = timeout.components
            let wait = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            return try await clients.client(for: url, decompressing: decompressing).execute(request, timeout: wait)
        } catch {
            throw await Self.dataError(error, url: url, stallTimeout: configuration.stallTimeout, proxies: clients.proxies)
        }
    }

    /// A request body that tells `sent` of each piece as the client takes it; a file is read in
    /// pieces, from the start, each time the body is sent.
    private static func requestBody(
        _ body: DataRequestBody, sent: @escaping @Sendable (Int64, Int64, Int64) -> Void
    ) throws(TransferError) -> HTTPClientRequest.Body {
        let total: Int64
        switch body {
        case .bytes(let data): total = Int64(data.count)
        case .file(let file):
            guard let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int64,
                FileManager.default.isReadableFile(atPath: file.path)
            else { throw TransferError(.fileSystem, "cannot read the file to upload, \(file.path)", permanent: true) }
            total = size
        }
        return .stream(BodyPieces(source: body, total: total, sent: sent), length: .known(total))
    }

    /// What a failed data request's error means, in a ``TransferError`` (`.cancelled` when the
    /// calling task was cancelled).
    static func dataError(
        _ error: any Error, url: URL, stallTimeout: Duration, proxies: ProxySettings = .none
    ) async -> TransferError {
        if let error = error as? TransferError { return error }
        if Task.isCancelled || error is CancellationError || (error as? HTTPClientError) == .cancelled {
            return TransferError(.cancelled, "cancelled", permanent: true)
        }
        if TLSProblem.isTLSFailure(error), let (problem, server) = await TLSProblem.diagnose(error, url: url, proxies: proxies) {
            return NetworkFailure.tlsError(problem, server: server)
        }
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout {
            return TransferError(.timedOut, "no response from \(url.host ?? "the server") in time", permanent: true)
        }
        let (reason, permanent) = NetworkFailure.classify(error, url: url.absoluteString, stallTimeout: stallTimeout)
        if let error = error as? NIOConnectionError, error.connectionErrors.isEmpty {
            return TransferError(.cannotFindHost, reason, permanent: true)
        }
        if error is NIOConnectionError { return TransferError(.cannotConnectToHost, reason, permanent: true) }
        if let error = error as? IOError, [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH].contains(error.errnoCode) {
            return TransferError(.cannotConnectToHost, reason, permanent: true)
        }
        if case ChannelError.connectTimeout = error {
            return TransferError(.timedOut, "connecting to \(url.host ?? "the server") timed out", permanent: true)
        }
        return permanent ? NetworkFailure.permanentError(error, reason: reason) : TransferError(.network, reason, permanent: true)
    }
}
