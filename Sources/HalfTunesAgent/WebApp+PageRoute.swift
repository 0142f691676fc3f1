import Foundation
import HalfTunesKit
import HalfTunesWeb
import Hummingbird
import ServiceLifecycle

extension WebApp {
    /// The path of ``addPageRoute(to:pages:)``.
    static let pagePath = PageDocument.path

    /// `GET /api/page?host=H&port=P` with the page's token in `X-HalfTunes-Token` (agent's socket
    /// only): opens the page there (``PageHost``) and answers, as long as it stays open, a
    /// ``PageDocument`` line followed by a newline a second. The page closes when its asker hangs
    /// up (the write fails) or the agent shuts down; a failure to listen is the error's answer.
    func addPageRoute(to router: Router<WebContext>, pages: PageHost) {
        router.get(RouterPath(Self.pagePath)) { request, _ -> Response in
            let query = request.uri.queryParameters
            let host = query["host"].map(String.init) ?? "127.0.0.1"
            guard let port = query["port"].flatMap({ Int(String($0)) }), (0...65535).contains(port) else {
                throw DownloadError(.badInput, "the page's port must be a number from 0 to 65535")
            }
            guard let token = request.headers[WebApp.tokenHeader], token.utf8.count >= 32 else {
                throw DownloadError(.badInput, "the page needs a token of at least 32 characters (X-HalfTunes-Token)")
            }
            let page = try await pages.open(PageRequest(host: host, port: port, token: token))
            let first = try WireEncoding.data(PageDocument(url: page.url)) + Data("\n".utf8)
            return Response(
                status: .ok, headers: [.contentType: "application/x-ndjson", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    do {
                        try await writer.write(ByteBuffer(bytes: first))
                        // A write to an asker that has gone fails: then the page goes too.
                        while !Task.isCancelled, !Task.isShuttingDownGracefully {
                            try await Task.sleep(for: .seconds(1))
                            try await writer.write(ByteBuffer(string: "\n"))
                        }
                    } catch {}
                    await page.close()
                    try? await writer.finish(nil)
                })
        }
    }
}
