import Foundation
import HTTPTypes
import Hummingbird

extension WebApp {
    /// `/` (the page, with this process's token) and `/static/<name>`.
    func addPageRoutes(to router: Router<WebContext>) {
        router.get("/") { _, _ -> Response in
            guard let page = assets.files["index.html"] else { return Response(status: .notFound) }
            let html = String(decoding: page.data, as: UTF8.self).replacingOccurrences(of: "{{TOKEN}}", with: token)
            return Response(
                status: .ok,
                headers: [
                    .contentType: page.contentType, .cacheControl: "no-store",
                    .contentSecurityPolicy:
                        "default-src 'self'; img-src 'self' http: https: data:; media-src 'self'; frame-ancestors 'none'",
                    HTTPField.Name("X-Frame-Options")!: "DENY",
                ],
                body: .init(byteBuffer: ByteBuffer(string: html)))
        }
        router.get("/static/:name") { _, context -> Response in
            guard let name = context.parameters.get("name"), let asset = assets.files[name], name != "index.html" else {
                return Response(status: .notFound)
            }
            return Response(
                status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(bytes: asset.data)))
        }
    }
}
