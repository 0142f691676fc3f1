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
        let (target, partial) = try await PlaySource.open { () async throws(DownloadError) in try await control.playTarget(id) }
        if let partial { return servePartial(target, partial, request) }
        let file = URL(fileURLWithPath: target.file ?? "")
        var head = request.head
        let encoded = file.lastPathComponent.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        head.path = "/" + encoded
        do {
            // The middleware serves the file when what comes after it answers "not found".
            return try await files.handle(Request(head: head, body: request.body), context: context) { _, _ in
                throw HTTPError(.notFound)
            }
        } catch let error as HTTPError where error.status == .notFound {
            throw DownloadError(.notFound, "that track's file is missing")
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
