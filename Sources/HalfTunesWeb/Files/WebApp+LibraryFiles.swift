import Foundation
import HTTPRanges
import HalfTunesKit
import Hummingbird

extension WebApp {
    /// The media type of each audio file extension the library holds.
    static let audioTypes: [String: MediaType] = [
        "wav": MediaType(type: .audio, subType: "wav"), "m4a": MediaType(type: .audio, subType: "mp4"),
        "aac": MediaType(type: .audio, subType: "aac"), "mp3": MediaType(type: .audio, subType: "mpeg"),
    ]

    /// `/library/<track id>`: a downloaded track's file, with Range support so the player can seek;
    /// or, while the track downloads, the bytes so far and the rest as they arrive. The file is
    /// found by track id; the request never names a path.
    package func addLibraryFileRoutes(to router: Router<WebContext>) {
        let files = FileMiddleware<WebContext, LocalFileSystem>(library.path, logger: logger)
            .withAdditionalMediaTypes(forFileExtensions: Self.audioTypes)
        let path = RouterPath(APIRoute.Pattern.file.path)
        router.on(path, method: .get) { request, context in try await serveLibraryFile(request, context, files) }
        router.on(path, method: .head) { request, context in try await serveLibraryFile(request, context, files) }
        // The library as a playlist for other players on this machine (absolute paths).
        router.get("/library.m3u8") { _, _ -> Response in
            let playlist = Playlist.m3u8(try await control.listing().library)
            return Response(
                status: .ok,
                headers: [
                    .contentType: "audio/x-mpegurl; charset=utf-8",
                    .contentDisposition: "attachment; filename=\"HalfTunes.m3u8\"",
                    .cacheControl: "no-store",
                ],
                body: .init(byteBuffer: ByteBuffer(string: playlist)))
        }
    }

    private func serveLibraryFile(
        _ request: Request, _ context: WebContext, _ files: FileMiddleware<WebContext, LocalFileSystem>
    ) async throws -> Response {
        let id = try trackID(context)
        let control = control
        // Not in the library yet: a download in progress plays from the bytes it has (its
        // document names the partial file, opened before the answer's head is sent: a download
        // that completes meanwhile is served from the library instead).
        var (target, partial) = try await PlaySource.open { () async throws(DownloadError) in try await control.playTarget(id) }
        if partial != nil, target.expectedBytes == nil, request.headers[.range] != nil,
            let known = await lookOnceLengthKnown(id)
        {
            (target, partial) = known
        }
        if let partial { return servePartial(target, partial, request) }
        let file = URL(fileURLWithPath: target.file ?? "")
        var head = request.head
        let encoded = file.lastPathComponent.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        head.path = "/" + encoded
        // The range is ours to read (RangeDecision, the one parser): the middleware is handed
        // it as first-last, or none (a suffix it would read as a prefix; a malformed one it refuses).
        if head.headerFields[.range] != nil, let size = try? FileManager.default.attributesOfItem(atPath: file.path)[.size],
            let length = (size as? NSNumber)?.intValue
        {
            switch RangeDecision.decide(range: head.headerFields[.range], length: length) {
            case .full: head.headerFields[.range] = nil
            case .partial(let bytes): head.headerFields[.range] = "bytes=\(bytes.lowerBound)-\(bytes.upperBound)"
            case .unsatisfiable where head.headerFields[.ifRange] == nil:
                return Response(
                    status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(length)", .acceptRanges: "bytes"])
            case .unsatisfiable: head.headerFields[.range] = nil  // If-Range decides; the whole is never wrong
            }
        }
        do {
            // The middleware serves the file when what comes after it answers "not found".
            return try await files.handle(Request(head: head, body: request.body), context: context) { _, _ in
                throw HTTPError(.notFound)
            }
        } catch let error as HTTPError where error.status == .notFound {
            throw DownloadError(.notFound, "that track's file is missing")
        }
    }

    /// A downloading track looked at again, at each of its events, until its length is known (the
    /// response's head reached the session; a server that sends no length: the file in the
    /// library) or its download stops, for at most `bound`: a `Range` asked before then gets its
    /// 206, not the whole file. `nil`: the length is still unknown.
    private func lookOnceLengthKnown(
        _ id: Int, bound: Duration = .seconds(30)
    ) async -> (target: DownloadDocument, partial: OpenedFile?)? {
        let (service, control, events) = (service, control, service.events())
        let settled: @Sendable () async -> (target: DownloadDocument, partial: OpenedFile?)? = {
            guard
                let look = try? await PlaySource.open({ () async throws(DownloadError) in try await control.playTarget(id) })
            else { return nil }
            if look.partial == nil || look.target.expectedBytes != nil { return look }
            return await service.isArriving(trackID: id) ? nil : look
        }
        return await withTaskGroup(of: (target: DownloadDocument, partial: OpenedFile?)?.self) { group in
            group.addTask {
                // Subscribed before the first look: no event between the two is missed.
                if let look = await settled() { return look }
                for await event in events where event.trackID == id {
                    if let look = await settled() { return look }
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: bound)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// A download in progress, as a file being written: its full length when known (so the
    /// player can seek, and a range not yet downloaded is waited for), ranges, no caching.
    private func servePartial(_ target: DownloadDocument, _ partial: OpenedFile, _ request: Request) -> Response {
        let file = URL(fileURLWithPath: partial.path)
        // A partial file is named like the finished one, plus ".part".
        let type = Self.audioTypes[file.deletingPathExtension().pathExtension] ?? MediaType(type: .audio, subType: "mp4")
        var headers: HTTPFields = [.cacheControl: "no-store", .acceptRanges: "bytes", .contentType: type.description]
        let (app, trackID) = (self, target.id)
        let underway: @Sendable () async -> Bool = { await app.isUnderway(trackID) }
        var status = HTTPResponse.Status.ok
        var range: (start: Int64, end: Int64?) = (0, nil)
        if let length = target.expectedBytes {
            switch RangeDecision.decide(range: request.headers[.range], length: Int(length)) {
            case .full:
                range = (0, length)
            case .partial(let bytes):
                status = .partialContent
                range = (Int64(bytes.lowerBound), Int64(bytes.upperBound) + 1)
                headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(length)"
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(length)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
        }
        let contentLength = range.end.map { Int($0 - range.start) }
        if let contentLength { headers[.contentLength] = String(contentLength) }
        guard request.method != .head else { return Response(status: status, headers: headers) }
        let reader = GrowingFileReader(opened: partial, start: range.start, end: range.end, isUnderway: underway)
        return Response(
            status: status, headers: headers,
            body: ResponseBody(contentLength: contentLength) { writer in
                let complete = try await reader.read { chunk in try await writer.write(ByteBuffer(bytes: chunk)) }
                // A body of known length cut short: the connection closes, and the player knows.
                guard complete else { throw DownloadError(.notFound, "the download stopped before its end") }
                try await writer.finish(nil)
            })
    }
}
