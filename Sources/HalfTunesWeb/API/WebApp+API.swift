import Foundation
import HalfTunesKit
import Hummingbird
import ITunesSearch

extension WebApp {
    /// The JSON API. Every route takes track ids; none takes a URL or a path.
    func addAPIRoutes(to router: Router<BasicRequestContext>) {
        let api = router.group("api")
        api.get("search") { request, _ -> Response in
            let parameters = request.uri.queryParameters
            let term = parameters["term"].map(String.init) ?? ""
            let limit = parameters["limit"].flatMap { Int($0) } ?? 50
            let country = parameters["country"].map(String.init) ?? "US"
            let found = try await catalog.search(try SearchQuery(term: term, country: country, limit: limit))
            tracks.remember(found)
            var items: [TrackItem] = []
            for track in found { items.append(TrackItem(track, status: try await service.status(trackID: track.id))) }
            return try json(["results": items])
        }
        api.get("downloads") { _, _ -> Response in try await json(listing()) }
        api.post("downloads/:id") { _, context -> Response in
            let id = try trackID(context)
            let track = try await knownTrack(id)
            let statuses = try await service.download([track])
            return try json(TrackItem(track, status: statuses.first))
        }
        api.post("downloads/:id/pause") { _, context -> Response in
            try await service.pause(trackID: try trackID(context))
            return try await current(try trackID(context))
        }
        api.post("downloads/:id/resume") { _, context -> Response in
            try await service.resume(trackID: try trackID(context))
            return try await current(try trackID(context))
        }
        api.delete("downloads/:id") { _, context -> Response in
            try await service.cancel(trackID: try trackID(context))
            return Response(status: .noContent)
        }
        api.delete("library/:id") { _, context -> Response in
            try await service.remove(trackID: try trackID(context))
            return Response(status: .noContent)
        }
    }

    private func knownTrack(_ id: Int) async throws -> Track {
        if let track = tracks.track(id) { return track }
        if let status = try await service.status(trackID: id) { return status.track }
        guard let track = try await catalog.lookup(id: id) else {
            throw APIError(status: .notFound, message: "the catalog has no track \(id)")
        }
        tracks.remember([track])
        return track
    }

    private func current(_ id: Int) async throws -> Response {
        guard let status = try await service.status(trackID: id) else { return Response(status: .noContent) }
        return try json(TrackItem(status))
    }

    func listing() async throws -> [String: [TrackItem]] {
        let downloads = await service.downloads().map(TrackItem.init)
        var library: [TrackItem] = []
        for item in try await service.libraryItems() {
            library.append(TrackItem(item.track, status: try await service.status(trackID: item.track.id)))
        }
        return ["downloads": downloads, "library": library]
    }

    func trackID(_ context: BasicRequestContext) throws -> Int {
        guard let text = context.parameters.get("id"), let id = Int(text), id > 0 else {
            throw APIError(status: .badRequest, message: "a track id is a positive number")
        }
        return id
    }

    func json(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}
