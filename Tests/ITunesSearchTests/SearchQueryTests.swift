import Foundation
import Hummingbird
import Logging
import TestSupport
import Testing

@testable import ITunesSearch

@Suite("Search queries")
struct SearchQueryTests {
    @Test("reserved characters and spaces are form-encoded")
    func reservedCharacters() {
        #expect(FormEncoding.encode("a&b=c+d#e%f g") == "a%26b%3Dc%2Bd%23e%25f+g")
        #expect(FormEncoding.encode("AZaz09-._~") == "AZaz09-._~")
        #expect(FormEncoding.encode("/?:@") == "%2F%3F%3A%40")
    }

    @Test("Unicode is encoded as percent-escaped UTF-8")
    func unicode() {
        #expect(FormEncoding.encode("café") == "caf%C3%A9")
        #expect(FormEncoding.encode("ラブ") == "%E3%83%A9%E3%83%96")
        #expect(FormEncoding.encode("💖") == "%F0%9F%92%96")
    }

    @Test("the query asks for songs in music, with the limit and country")
    func queryString() throws {
        let query = try SearchQuery(term: "  price tag ", country: "jp", limit: 25)
        #expect(query.term == "price tag")
        #expect(query.country == "JP")
        #expect(query.queryString == "term=price+tag&country=JP&media=music&entity=song&limit=25")
    }

    @Test(
        "invalid queries are refused before any call",
        arguments: [
            ("", "US", 50, "empty"), ("   ", "US", 50, "empty"), ("x", "US", 0, "between 1 and 200"),
            ("x", "US", 201, "between 1 and 200"), ("x", "USA", 50, "two-letter"), ("x", "1A", 50, "two-letter"),
        ])
    func invalid(term: String, country: String, limit: Int, says: String) {
        #expect {
            try SearchQuery(term: term, country: country, limit: limit)
        } throws: { error in
            let error = error as? CatalogError
            return error?.code == .invalidQuery && error?.message.contains(says) == true
        }
    }

    @Test("tricky terms reach a real server exactly as typed")
    func termsCrossTheWire() async throws {
        let seen = RequestLog<String>()
        let router = Router()
        router.get("/search") { request, _ -> Response in
            seen.append(request.uri.query ?? "")
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: #"{"resultCount":0,"results":[]}"#)))
        }
        let terms = ["rock & roll", "a=b", "1+1", "#hashtag", "100%", "  spaced   out ", "Beyoncé", "ラブソング", "💖 love", "a/b?c"]
        try await withTestServer(router) { url in
            let catalog = try ITunesCatalog(
                configuration: CatalogConfiguration(baseURL: url, callsPerMinute: nil), logger: quietLogger("t"))
            for term in terms {
                _ = try await catalog.search(SearchQuery(term: term))
            }
        }
        let decoded = seen.all.map(decodeForm)
        #expect(decoded.map { $0["term"] } == terms.map { $0.trimmingCharacters(in: .whitespaces) })
        for parameters in decoded {
            #expect(parameters["media"] == "music")
            #expect(parameters["entity"] == "song")
            #expect(parameters["limit"] == "50")
            #expect(parameters["country"] == "US")
        }
    }

    /// A reference form decoder (`+` is a space), independent of the one under test.
    private func decodeForm(_ query: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "<invalid>"
            }
            result[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return result
    }
}

@Suite("Search filters (pure)")
struct SearchFilterTests {
    @Test("attribute, explicit, lang and offset go into the query as the API names them, only when set")
    func parameters() throws {
        let plain = try SearchQuery(term: "love", field: nil)
        #expect(!plain.queryString.contains("attribute") && !plain.queryString.contains("offset"))
        let query = try SearchQuery(term: "love", limit: 25, field: .artist, explicit: false, language: "JA_JP", offset: 50)
        #expect(
            query.queryString
                == "term=love&country=US&media=music&entity=song&limit=25&attribute=artistTerm&explicit=No&lang=ja_jp&offset=50")
        #expect(try SearchQuery(term: "x", field: .album).queryString.hasSuffix("&attribute=albumTerm"))
        #expect(
            try SearchQuery(term: "x", field: .song, explicit: true).queryString.hasSuffix("&attribute=songTerm&explicit=Yes"))
    }

    @Test("a language the API does not answer in, or a negative offset, is refused naming the value")
    func refused() {
        #expect { try SearchQuery(term: "x", field: nil, language: "fr_fr") } throws: {
            ($0 as? CatalogError)?.message == "the language must be en_us or ja_jp, not \"fr_fr\""
        }
        #expect { try SearchQuery(term: "x", field: nil, offset: -1) } throws: {
            ($0 as? CatalogError)?.message == "the offset must be 0 or more, not -1"
        }
    }
}
