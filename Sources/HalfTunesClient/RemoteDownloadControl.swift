import AsyncHTTPClient
import Foundation
import HalfTunesKit
import NIOCore
import NIOHTTP1
import NetworkBasics
import Synchronization

/// The ``DownloadControl`` of every client of the home's agent (`halftunes agent`, or `demo` and
/// `serve` hosting it): each call goes through the agent's API on its Unix socket (the routes
/// of ``APIRoute``), as the page's requests do.
public struct RemoteDownloadControl: DownloadControl {
    /// The agent's URL (AsyncHTTPClient's `http+unix`).
    public let url: URL
    let client: HTTPClient
    public let owner: DownloadOwner
    /// What messages call the owner.
    let name: String
    let address: AgentAddress
    /// Brings an agent back when this one has ended (`nil`: its end is an error).
    let revive: (@Sendable () async throws(DownloadError) -> Void)?
    /// Agents brought back so far: a few at most, so a crash that recurs is not chased for ever.
    private let revivals = Revivals()

    /// A control that talks to the agent on `agent`, run by process `pid`.
    ///
    /// - Parameter revive: Called when the agent is found gone (an event stream that ends, a
    ///   request that cannot connect) to start another (``AgentLauncher``), at most 3 times; the
    ///   call is then made again. The downloads it left go on in the new one, from their bytes on disk.
    public init(
        agent: AgentAddress, pid: Int32, client: HTTPClient = .shared,
        revive: (@Sendable () async throws(DownloadError) -> Void)? = nil
    ) {
        self.url = agent.url
        self.client = client
        self.owner = .agent(pid: pid)
        self.name = "the HalfTunes agent (process \(pid), \(agent.socket.path))"
        self.address = agent
        self.revive = revive
    }

    /// The agents a control has brought back.
    final class Revivals: Sendable {
        static let limit = 3
        private let count = Mutex(0)
        /// Counts one more; `false` past the limit.
        func take() -> Bool {
            count.withLock {
                $0 += 1
                return $0 <= Self.limit
            }
        }
    }

    /// Whether the agent is gone, and another was started in its place (the caller tries again).
    /// One that ends as it starts (the input that ended the last one ends it again) is followed
    /// by another, within the limit.
    private func cameBack() async throws(DownloadError) -> Bool {
        guard let revive else { return false }
        if case .running = address.probe() { return false }
        var failure: DownloadError?
        while revivals.take() {
            do throws(DownloadError) {
                try await revive()
                return true
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return false
    }

    public func search(term: String, limit: Int, country: String) async throws(DownloadError) -> SearchResults {
        try await search(SearchRequest(term: term, limit: limit, country: country))
    }

    public func search(_ request: SearchRequest) async throws(DownloadError) -> SearchResults {
        try await call(.search(request))
    }

    public func album(_ collectionID: Int) async throws(DownloadError) -> SearchResults { try await call(.album(collectionID)) }

    public func artist(_ artistID: Int, limit: Int) async throws(DownloadError) -> SearchResults {
        try await call(.artist(artistID, limit: limit))
    }

    public func start(_ trackIDs: [Int]) async throws(DownloadError) -> [DownloadDocument] {
        var documents: [DownloadDocument] = []
        var rest = trackIDs[...]
        while !rest.isEmpty {
            let slice = rest.prefix(APIRoute.maximumBatch)
            rest = rest.dropFirst(slice.count)
            let batch: BatchDocument = try await call(.startBatch(Array(slice)))
            documents += batch.downloads
        }
        return documents
    }

    public func pause(_ trackID: Int) async throws(DownloadError) -> DownloadDocument { try await call(.pause(trackID)) }

    public func resume(_ trackID: Int) async throws(DownloadError) -> DownloadDocument { try await call(.resume(trackID)) }

    public func cancel(_ trackID: Int) async throws(DownloadError) { _ = try await send(.cancel(trackID)) }

    public func remove(_ trackID: Int) async throws(DownloadError) { _ = try await send(.remove(trackID)) }

    public func listing(_ query: ListingQuery) async throws(DownloadError) -> Listing { try await call(.listing(query)) }

    public func retag(_ trackID: Int) async throws(DownloadError) -> DownloadDocument { try await call(.retag(trackID)) }

    public func bandwidthLimit() async throws(DownloadError) -> Int? {
        let document: RateDocument = try await call(.rate)
        return document.bytesPerSecond
    }

    public func setBandwidthLimit(_ bytesPerSecond: Int?) async throws(DownloadError) -> Int? {
        let document: RateDocument = try await call(.setRate(bytesPerSecond))
        return document.bytesPerSecond
    }

    public func playTarget(_ trackID: Int) async throws(DownloadError) -> DownloadDocument {
        // The server runs on this machine: its library file is what to play; a download in
        // progress with bytes plays from the agent's /library/:id, which sends the rest as it comes.
        let listing = try await listing()
        if let document = listing.library.first(where: { $0.id == trackID }), document.file != nil { return document }
        guard let document = listing.downloads.first(where: { $0.id == trackID && $0.receivedBytes > 0 }) else {
            throw DownloadError(
                .notFound, "track \(trackID) is not in the library; download it first: halftunes download \(trackID)")
        }
        return document
    }

    /// The agent's `/library/:id`: the bytes of a download so far, then the rest as they arrive
    /// (what the page's player gets).
    public func streamTrack(_ trackID: Int, into receive: @Sendable ([UInt8]) async -> Bool) async throws(DownloadError) {
        let response = try await execute(.file(trackID))
        try await check(response)
        do {
            for try await buffer in response.body where await !receive(Array(buffer.readableBytesView)) { return }
        } catch {
            throw DownloadError(.upstreamFailure, "\(name): the stream of track \(trackID) broke off: \(error)")
        }
    }

    public func events() async throws(DownloadError) -> AsyncStream<DownloadEvent> {
        // A stream that ended with its agent: another is brought up first, not waited for.
        _ = try await cameBack()
        let response = try await execute(.events)
        try await check(response)
        let (stream, continuation) = AsyncStream<DownloadEvent>.makeStream()
        let task = Task {
            defer { continuation.finish() }
            var parser = SSEParser()
            let decoder = JSONDecoder()
            do {
                for try await buffer in response.body {
                    for data in parser.feed(buffer.readableBytesView) {
                        if let event = try? JSONInput.decode(WireEvent.self, from: Data(data.utf8), decoder: decoder) {
                            continuation.yield(event.downloadEvent)
                        }
                    }
                }
            } catch {
                // The server went away: the stream ends.
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    public func close() async {}

    // MARK: - Internals

    private func call<T: Decodable>(_ route: APIRoute) async throws(DownloadError) -> T {
        let body = try await send(route)
        do { return try JSONInput.decode(T.self, from: body) } catch {
            throw DownloadError(
                .upstreamFailure, "\(name) sent an answer this version cannot read: \(error)")
        }
    }

    @discardableResult
    private func send(_ route: APIRoute) async throws(DownloadError) -> Data {
        let response = try await execute(route)
        try await check(response)
        do { return Data(try await response.body.collect(upTo: 64 << 20).readableBytesView) } catch {
            throw DownloadError(.upstreamFailure, "lost \(name) while reading its answer: \(error)")
        }
    }

    private func execute(_ route: APIRoute) async throws(DownloadError) -> HTTPClientResponse {
        var request = HTTPClientRequest(url: url.absoluteString + route.target)
        request.method = HTTPMethod(rawValue: route.method)
        do {
            // Event streams and a download's bytes last as long as they last.
            let endless = route == .events || route.pattern == .file
            return try await client.execute(request, timeout: endless ? .hours(24 * 365) : .seconds(60))
        } catch {
            if try await cameBack() { return try await execute(route) }
            throw DownloadError(
                .upstreamFailure, "cannot reach \(name): \(error)")
        }
    }

    /// Throws the agent's own error for a failing answer.
    func check(_ response: HTTPClientResponse) async throws(DownloadError) {
        guard !(200..<300).contains(response.status.code) else { return }
        let body = try? await response.body.collect(upTo: 1 << 20)
        if let body, let document = try? JSONInput.decode(ErrorDocument.self, from: Data(body.readableBytesView)) {
            throw DownloadError(
                document.code, document.message, retryAfter: response.headers.first(name: "Retry-After").flatMap { Int($0) },
                trackIDs: document.trackIds ?? [])
        }
        throw DownloadError(.upstreamFailure, "\(name) answered HTTP \(response.status.code)")
    }
}
