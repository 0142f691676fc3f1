import Foundation
import HalfTunesKit
import TestSupport
import Testing

@testable import HalfTunesWeb

/// The catalog's rate limit (403 with an empty body, as the live API answers) reaches the page as
/// what it is — 429 `rateLimited` with `Retry-After` — never as "not found".
@Suite("The web app over a rate-limited catalog", .timeLimit(.minutes(1)))
struct RateLimitedCatalogTests {
    @Test("a search and a download of an unknown track are 429 rateLimited with a wait, not 404")
    func rateLimited() async throws {
        try await withRateLimitedCatalog { limited in
            try await withWebApp(catalogURL: limited) { url, web, catalog, _ in
                let search = try await request(url, "/api/search?term=love")
                #expect(search.status == 429, "\(String(decoding: search.body, as: UTF8.self))")
                #expect(search.json?["code"] as? String == "rateLimited")
                let start = try await request(url, "/api/downloads/1001", method: .POST, headers: allowed(url, web))
                #expect(start.status == 429, "\(String(decoding: start.body, as: UTF8.self))")
                #expect(start.json?["code"] as? String == "rateLimited")
                #expect((start.json?["message"] as? String)?.contains("not found") == false)
                #expect(catalog.previewRequests.isEmpty)
            }
        }
    }
}
