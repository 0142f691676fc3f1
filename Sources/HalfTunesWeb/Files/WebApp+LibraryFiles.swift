import Foundation
import HalfTunesKit
import Hummingbird

extension WebApp {
    /// `/library/<track id>`: a downloaded track's file, with Range support so the player can seek.
    /// The file is found by track id in the library; the request never names a path.
    func addLibraryFileRoutes(to router: Router<WebContext>) {
        let files = FileMiddleware<WebContext, LocalFileSystem>(
            service.home.library.path, logger: logger
        )
        .withAdditionalMediaTypes(forFileExtensions: [
            "wav": MediaType(type: .audio, subType: "wav"), "m4a": MediaType(type: .audio, subType: "mp4"),
            "aac": MediaType(type: .audio, subType: "aac"), "mp3": MediaType(type: .audio, subType: "mpeg"),
        ])
        let path = RouterPath(APIRoute.Pattern.file.path)
        router.on(path, method: .get) { request, context in try await serveLibraryFile(request, context, files) }
        router.on(path, method: .head) { request, context in try await serveLibraryFile(request, context, files) }
    }

    private func serveLibraryFile(
        _ request: Request, _ context: WebContext, _ files: FileMiddleware<WebContext, LocalFileSystem>
    ) async throws -> Response {
        let file = URL(fileURLWithPath: try await control.playTarget(try trackID(context)).file ?? "")
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
}
