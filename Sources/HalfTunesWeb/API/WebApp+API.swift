import Foundation
import HalfTunesKit
import Hummingbird
import ITunesSearch

extension WebApp {
    /// The JSON API, registered from the route table. Every route takes track ids; none takes a
    /// URL or a path. Each handler is one call on the download control.
    package func addAPIRoutes(to router: Router<WebContext>) {
        let patterns: [APIRoute.Pattern] = [
            .search, .album, .artist, .listing, .start, .startBatch, .pause, .resume, .cancel, .remove, .retag, .rate,
            .setRate,
        ]
        for pattern in patterns {
            router.on(RouterPath(pattern.path), method: HTTPRequest.Method(pattern.method)!) { request, context in
                try await answer(pattern, request, context)
            }
        }
    }

    private func answer(_ pattern: APIRoute.Pattern, _ request: Request, _ context: WebContext) async throws -> Response {
        switch pattern {
        case .search:
            let parameters = request.uri.queryParameters
            // A value that is not one is refused, as the listing's are, not taken as the default.
            return try json(await control.search(try SearchRequest { parameters[$0[...]].map(String.init) }))
        case .album:
            return try json(await control.album(try trackID(context, of: "an album")))
        case .artist:
            let text = request.uri.queryParameters["limit"].map(String.init)
            let limit = try text.map { text in
                guard let limit = Int(text), (1...200).contains(limit) else {
                    throw DownloadError(.badInput, "the limit must be a number between 1 and 200, not \"\(text)\"")
                }
                return limit
            }
            return try json(await control.artist(try trackID(context, of: "an artist"), limit: limit ?? 50))
        case .listing:
            let parameters = request.uri.queryParameters
            let query = try ListingQuery { name in parameters[name[...]].map(String.init) }
            return try json(await control.listing(query))
        case .start:
            let id = try trackID(context)
            guard let document = try await control.start([id]).first else {
                throw DownloadError.unknownTracks([id])
            }
            return try json(document)
        case .startBatch:
            return try json(BatchDocument(downloads: try await control.start(try batchIDs(request))))
        case .pause:
            return try json(await control.pause(try trackID(context)))
        case .resume:
            return try json(await control.resume(try trackID(context)))
        case .cancel:
            try await control.cancel(try trackID(context))
            return Response(status: .noContent)
        case .remove:
            try await control.remove(try trackID(context))
            return Response(status: .noContent)
        case .retag:
            return try json(await control.retag(try trackID(context)))
        case .rate:
            return try json(RateDocument(bytesPerSecond: await control.bandwidthLimit()))
        case .setRate:
            let text = request.uri.queryParameters["bytesPerSecond"].map(String.init) ?? ""
            guard let rate = Int(text), rate >= 0 else {
                throw DownloadError(
                    .badInput, "bytesPerSecond must be a whole number of bytes a second (0: no cap), not \"\(text)\"")
            }
            return try json(RateDocument(bytesPerSecond: await control.setBandwidthLimit(rate == 0 ? nil : rate)))
        case .events, .file:
            throw DownloadError(.internalError, "\(pattern.path) has its own handler")
        }
    }

    /// The route's `:id`, a positive number (of a track, or of what `what` names).
    func trackID(_ context: WebContext, of what: String = "a track") throws -> Int {
        guard let text = context.parameters.get("id"), let id = Int(text), id > 0 else {
            throw DownloadError(.badInput, "\(what) id is a positive number")
        }
        return id
    }

    /// A batch's `ids`: positive numbers, comma-separated, at most ``APIRoute/maximumBatch``.
    func batchIDs(_ request: Request) throws -> [Int] {
        let text = request.uri.queryParameters["ids"].map(String.init) ?? ""
        let ids = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
        guard !ids.isEmpty, ids.allSatisfy({ ($0 ?? 0) > 0 }) else {
            throw DownloadError(.badInput, "ids is a comma-separated list of track ids, not \"\(text)\"")
        }
        guard ids.count <= APIRoute.maximumBatch else {
            throw DownloadError(.badInput, "at most \(APIRoute.maximumBatch) ids a batch, not \(ids.count)")
        }
        return ids.compactMap { $0 }
    }

    package func json(_ value: some Encodable) throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: try WireEncoding.data(value))))
    }
}
