import Foundation
import HalfTunesKit
import Hummingbird

extension WebApp {
    /// `/library/<track id>`: a downloaded track's file, with Range support so the player can seek.
    /// The file is found by track id in the library; the request never names a path.
    func addLibraryFileRoutes(to router: Router<BasicRequestContext>) {
        let files = FileMiddleware<BasicRequestContext, LocalFileSystem>(
            service.home.library.path, logger: logger
        )
        .withAdditionalMediaTypes(forFileExtensions: [
            "wav": MediaType(type: .audio, subType: "wav"), "m4a": MediaType(type: .audio, subType: "mp4"),
            "aac": MediaType(type: .audio, subType: "aac"), "mp3": MediaType(type: .audio, subType: "mpeg"),
        ])
        router.on("/library/:id", method: .get) { request, context in try await serveLibraryFile(request, context, files) }
        router.on("/library/:id", method: .head) { request, context in try await serveLibraryFile(request, context, files) }
    }

    private func serveLibraryFile(
        _ request: Request, _ context: BasicRequestContext, _ files: FileMiddleware<BasicRequestContext, LocalFileSystem>
    ) async throws -> Response {
        guard let file = try await service.file(of: try trackID(context)) else {
            throw APIError(status: .notFound, message: "that track is not in the library")
        }
        var head = request.head
        let encoded = file.lastPathComponent.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        head.path = "/" + encoded
        do {
            // The middleware serves the file when what comes after it answers "not found".
            return try await files.handle(Request(head: head, body: request.body), context: context) { _, _ in
                throw HTTPError(.notFound)
            }
        } catch let error as HTTPError where error.status == .notFound {
            throw APIError(status: .notFound, message: "that track's file is missing")
        }
    }
}
