import Foundation
import Hummingbird
import TestSupport
import Testing

@testable import ITunesSearch

/// Real iTunes responses (captured by others) served by a local server and decoded by the client.
@Suite(
    "Real iTunes responses",
    .enabled(if: Fixtures.available, "../shared/fixtures/itunes is absent: real-response conformance tests skipped"))
struct FixtureConformanceTests {
    /// Serves one fixture as the answer to every search, with the given status.
    private func search(fixture: String, status: HTTPResponse.Status = .ok) async throws -> [Track] {
        let body = try Fixtures.data(fixture)
        let router = Router()
        router.get("/search") { _, _ in
            Response(
                status: status, headers: [.contentType: "text/javascript; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        return try await withTestServer(router) { url in
            let catalog = try ITunesCatalog(
                configuration: CatalogConfiguration(baseURL: url, callsPerMinute: nil), logger: quietLogger("t"))
            return try await catalog.search(SearchQuery(term: "price tag"))
        }
    }

    /// The fixture's raw results, read with JSONSerialization (independently of the decoder).
    private func rawResults(_ fixture: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Fixtures.data(fixture)) as? [String: Any]
        return try #require(object?["results"] as? [[String: Any]])
    }

    @Test("50 songs for \"price tag\", every field as the API sent it")
    func priceTag() async throws {
        let tracks = try await search(fixture: "search-price-tag-us-50.json")
        let raw = try rawResults("search-price-tag-us-50.json")
        #expect(tracks.count == 50)
        try #require(tracks.count == raw.count)
        for (track, result) in zip(tracks, raw) {
            #expect(track.id == result["trackId"] as? Int)
            #expect(track.name == result["trackName"] as? String)
            #expect(track.artist == result["artistName"] as? String)
            #expect(track.album == result["collectionName"] as? String)
            #expect(track.artworkURL?.absoluteString == result["artworkUrl100"] as? String)
            #expect(track.durationMs == result["trackTimeMillis"] as? Int)
            #expect(track.previewURL?.absoluteString == result["previewUrl"] as? String)
            #expect(track.genre == result["primaryGenreName"] as? String)
            #expect(track.explicitness?.rawValue == result["trackExplicitness"] as? String)
            let releaseDate = try #require(result["releaseDate"] as? String)
            #expect(track.releaseDate == (try Date(releaseDate, strategy: .iso8601)))
            #expect(track.isDownloadable)
        }
        // Both preview URL styles the fixture mixes are kept intact.
        #expect(tracks.contains { $0.previewURL?.lastPathComponent.hasPrefix("mzaf_") == true })
        #expect(tracks.contains { $0.previewURL?.absoluteString.contains("mzm.") == true })
        #expect(Set(tracks.compactMap(\.explicitness)) == [.explicit, .cleaned, .notExplicit])
    }

    @Test("a two-result search")
    func hellogoodbye() async throws {
        let tracks = try await search(fixture: "search-hellogoodbye-2.json")
        #expect(tracks.map(\.id) == (try rawResults("search-hellogoodbye-2.json").compactMap { $0["trackId"] as? Int }))
        #expect(tracks.first?.name == "Here (In Your Arms)")
        #expect(tracks.first?.artist == "Hellogoodbye")
    }

    @Test("an empty search is an empty list, not an error")
    func empty() async throws {
        #expect(try await search(fixture: "search-empty.json").isEmpty)
    }

    @Test("the API's 400 body becomes a bad-request error carrying its message")
    func badRequest() async throws {
        await #expect {
            try await search(fixture: "error-400-invalid-entity.json", status: .badRequest)
        } throws: { error in
            guard let error = error as? CatalogError else { return false }
            return error.code == .badRequest && error.message.contains("Invalid value(s) for key(s): [resultEntity]")
        }
    }
}
