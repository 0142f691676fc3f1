import Foundation
import Hummingbird
import HummingbirdCore
import Logging

extension DemoCatalog {
    /// A Hummingbird application serving the catalog, for running beside other services.
    ///
    /// - Parameters:
    ///   - host: Address to bind; `127.0.0.1` by default.
    ///   - port: Port to bind; `0` picks a free one.
    ///   - server: How it serves: HTTP/1.1 by default; HTTPS (with HTTP/2) given a TLS builder
    ///     such as HummingbirdHTTP2's `.http2Upgrade(tlsConfiguration:)`, then with `scheme` "https".
    ///   - urlName: The host its URLs name (the name its certificate is for); `host` by default.
    ///   - onReady: Called with the catalog's base URL once it listens.
    public func application(
        host: String = "127.0.0.1",
        port: Int = 0,
        server: HTTPServerBuilder = .http1(),
        scheme: String = "http",
        urlName: String? = nil,
        onReady: @escaping @Sendable (URL) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: makeRouter(),
            server: server,
            configuration: .init(address: .hostname(host, port: port), serverName: "DemoCatalog"),
            onServerRunning: { [self] channel in
                let boundPort = channel.localAddress?.port ?? port
                let urlHost =
                    urlName ?? (host == "0.0.0.0" || host == "::" ? "127.0.0.1" : (host.contains(":") ? "[\(host)]" : host))
                let url = URL(string: "\(scheme)://\(urlHost):\(boundPort)")!
                setBaseURL(url)
                logger.info("DemoCatalog listening", metadata: ["url": "\(url)"])
                await onReady(url)
            },
            logger: logger
        )
    }

    /// An application serving the catalog on a free port of 127.0.0.1, and a way to wait for its
    /// base URL (`nil` when it stopped before it listened).
    public func applicationOnFreePort() -> (application: some ApplicationProtocol, url: @Sendable () async -> URL?) {
        let (ready, readyContinuation) = AsyncStream<URL>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let application = application(port: 0) { url in
            readyContinuation.yield(url)
            readyContinuation.finish()
        }
        return (application, { await ready.first { _ in true } })
    }

    /// Runs the catalog until the task is cancelled.
    public func run(
        host: String = "127.0.0.1",
        port: Int = 0,
        onReady: @escaping @Sendable (URL) async -> Void = { _ in }
    ) async throws {
        try await application(host: host, port: port, onReady: onReady).run()
    }

    /// Runs the catalog until SIGINT or SIGTERM, then stops gracefully.
    public func runUntilSignalled(
        host: String = "127.0.0.1", port: Int = 0, onReady: @escaping @Sendable (URL) async -> Void = { _ in }
    ) async throws {
        try await application(host: host, port: port, onReady: onReady).runService()
    }

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/search") { request, _ in self.search(request) }
        router.get("/lookup") { request, _ in self.lookup(request) }
        router.get("/previews/:file") { request, context in await self.previewResponse(request, context: context) }
        router.head("/previews/:file") { request, context in await self.previewResponse(request, context: context) }
        router.get("/artwork/:id/:size") { request, context in self.artwork(request, context: context) }
        router.get("/store/:id") { _, context in self.storePage(context) }
        router.get("/store/album/:id") { _, context in self.storePage(context, kind: "album") }
        router.get("/store/artist/:id") { _, context in self.storePage(context, kind: "artist") }
        return router
    }

    var base: String { baseURL?.absoluteString ?? "" }

    func search(_ request: Request) -> Response {
        let query = FormQuery.parse(request.uri.query)
        recordSearch(query)
        let country = query["country"] ?? "US"
        guard country.count == 2, country.allSatisfy(\.isLetter) else {
            return badRequest("Invalid value(s) for key(s): [country]")
        }
        if let entity = query["entity"], !["song", "musicTrack"].contains(entity) {
            return badRequest("Invalid value(s) for key(s): [resultEntity]")
        }
        if let media = query["media"], !["music", "all"].contains(media) {
            return badRequest("Invalid value(s) for key(s): [media]")
        }
        let attribute = query["attribute"]
        if let attribute, !["songTerm", "artistTerm", "albumTerm", "mixTerm", "genreIndex", "composerTerm"].contains(attribute) {
            return badRequest("Invalid value(s) for key(s): [attribute]")
        }
        if let lang = query["lang"], !["en_us", "ja_jp"].contains(lang.lowercased()) {
            return badRequest("Invalid value(s) for key(s): [language]")
        }
        let explicit = query["explicit"].map { $0.lowercased() }
        if let explicit, !["yes", "no"].contains(explicit) { return badRequest("Invalid value(s) for key(s): [explicit]") }
        let limit = query["limit"].flatMap(Int.init).map { min(max($0, 1), 200) } ?? 50
        let offset = max(0, query["offset"].flatMap(Int.init) ?? 0)
        let words = (query["term"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
        let matching = tracks.filter {
            $0.matches(words: words, attribute: attribute) && (explicit != "no" || $0.explicitness != "explicit")
        }
        let found = words.isEmpty ? [] : matching.dropFirst(offset).prefix(limit)
        let store = country.uppercased() == "US" ? "USA" : country
        return json(
            found.map { .track(APIResult($0, baseURL: base, country: store, generation: previewGeneration(of: $0.id))) })
    }

    func artwork(_ request: Request, context: BasicRequestContext) -> Response {
        recordArtworkRequest()
        guard let id = context.parameters.get("id").flatMap(Int.init), let track = track(id: id),
            let sizeText = context.parameters.get("size"), sizeText.hasSuffix("bb.svg"),
            let size = Int(sizeText.prefix { $0.isNumber }), (1...3000).contains(size)
        else { return Response(status: .notFound) }
        let svg = ArtworkRenderer.svg(for: track, size: size)
        return Response(
            status: .ok,
            headers: [.contentType: "image/svg+xml", .cacheControl: "max-age=86400"],
            body: .init(byteBuffer: ByteBuffer(string: svg)))
    }

    /// The demo's stand-in for the store's page of a track (`trackViewUrl`).
    func storePage(_ context: BasicRequestContext, kind: String? = nil) -> Response {
        guard let id = context.parameters.get("id").flatMap(Int.init) else { return Response(status: .notFound) }
        let found: (title: String, detail: String)? =
            switch kind {
            case "album": album(id: id).first.map { ("\($0.album) — \($0.artist)", "An album of \(album(id: id).count) songs.") }
            case "artist": songs(ofArtist: id).first.map { ($0.artist, "\(songs(ofArtist: id).count) songs.") }
            case nil:
                track(id: id).map {
                    (
                        "\($0.name) — \($0.artist)",
                        "\($0.album), disc \($0.discNumber), track \($0.trackNumber) of \($0.trackCount)."
                    )
                }
            default: nil
            }
        guard let found else { return Response(status: .notFound) }
        let title = ArtworkRenderer.escapeXML(found.title)
        let html = """
            <!doctype html><html lang="en"><meta charset="utf-8"><title>\(title)</title>
            <h1>\(title)</h1><p>\(ArtworkRenderer.escapeXML(found.detail))</p>
            <p>This is the HalfTunes demo catalog: a real catalog links to the page in its store here.</p>
            """
        return Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    func json(_ results: [APIRow]) -> Response {
        encode(APIResponse(resultCount: results.count, results: results), status: .ok)
    }

    func badRequest(_ message: String) -> Response {
        encode(APIErrorResponse(errorMessage: message), status: .badRequest)
    }

    private func encode(_ value: some Encodable, status: HTTPResponse.Status) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status,
            headers: [.contentType: "text/javascript; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
