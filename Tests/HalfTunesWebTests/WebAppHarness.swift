import AsyncHTTPClient
import DemoCatalog
import Foundation
import HalfTunesKit
import ITunesSearch
import NIOCore
import NIOHTTP1
import TestSupport

@testable import HalfTunesWeb

// The web app over a real socket, for the suites of this target.

struct Answer {
    let status: Int
    let body: Data
    var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
}

/// A running web app over a DemoCatalog, with its own home folder.
func withWebApp(
    catalogURL: URL? = nil, _ body: (URL, WebApp, DemoCatalog, URL) async throws -> Void
) async throws {
    try await withDemoCatalog { catalog, demoURL in
        try await withTemporaryDirectory { home in
            let service = try await DownloadService.open(home: HalfTunesHome(root: home), logger: quietLogger("d"))
            let itunes = try ITunesCatalog(
                configuration: CatalogConfiguration(
                    baseURL: catalogURL ?? demoURL, timeout: .seconds(5), callsPerMinute: nil),
                logger: quietLogger("c"))
            let web = try WebApp(service: service, catalog: itunes, logger: silentLogger("web"))
            try await withRunningServer({ onReady in web.application(port: 0, onReady: onReady) }) { url in
                try await body(url, web, catalog, home)
            }
            await service.close()
        }
    }
}

func request(
    _ url: URL, _ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = []
) async throws -> Answer {
    var request = HTTPClientRequest(url: url.absoluteString + path)
    request.method = method
    for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    return Answer(
        status: Int(response.status.code), body: Data(try await response.body.collect(upTo: 4 << 20).readableBytesView))
}

func allowed(_ url: URL, _ web: WebApp) -> [(String, String)] {
    [("Origin", url.absoluteString), ("X-HalfTunes-Token", web.token)]
}
