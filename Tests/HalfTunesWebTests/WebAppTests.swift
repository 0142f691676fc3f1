import AsyncHTTPClient
import DemoCatalog
import Foundation
import HalfTunesKit
import ITunesSearch
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import HalfTunesWeb

/// The web app's API and its security rules, over a real socket.
@Suite("Web app API", .timeLimit(.minutes(1)))
struct WebAppTests {
    @Test("the page carries this process's token and the accessible controls")
    func page() async throws {
        try await withWebApp { url, web, _, _ in
            let page = String(decoding: try await request(url, "/").body, as: UTF8.self)
            #expect(page.contains("content=\"\(web.token)\""))
            #expect(page.contains("<label for=\"term\">Search songs</label>"))
            #expect(try await request(url, "/static/app.js").status == 200)
            #expect(try await request(url, "/static/index.html").status == 404)
        }
    }

    @Test("search merges each result with its download state; the library file is served with ranges")
    func search() async throws {
        try await withWebApp { url, web, catalog, _ in
            let first = try await request(url, "/api/search?term=love")
            let results = try #require(first.json?["results"] as? [[String: Any]])
            #expect(results.count == 5)
            #expect(results.allSatisfy { $0["state"] as? String == "notDownloaded" })
            let start = try await request(url, "/api/downloads/1001", method: .POST, headers: allowed(url, web))
            #expect(start.status == 200)
            // Poll the API (not the clock) until the download lands in the library.
            var state = ""
            for _ in 0..<200 where state != "downloaded" {
                let again = try await request(url, "/api/search?term=love")
                state =
                    ((again.json?["results"] as? [[String: Any]])?.first { $0["id"] as? Int == 1001 })?["state"] as? String ?? ""
                if state != "downloaded" { try await Task.sleep(for: .milliseconds(25)) }
            }
            #expect(state == "downloaded")

            // The file is served by track id, with ranges, so the player can seek.
            let preview = try #require(await catalog.preview(for: 1001)).data
            let part = try await request(url, "/library/1001", headers: [("Range", "bytes=100-199")])
            #expect(part.status == 206)
            #expect(part.body == preview[100..<200])
            // The whole file: the server's audio exactly, with the track's tags after it.
            let whole = try await request(url, "/library/1001").body
            #expect(WAVAudio.audioHash(whole) == WAVAudio.audioHash(preview))
            #expect(whole.count > preview.count)
            // Every Range is read by the one parser: the last bytes (not the first), a malformed
            // one ignored (not refused), one past the end refused.
            let tail = try await request(url, "/library/1001", headers: [("Range", "bytes=-100")])
            #expect(tail.status == 206)
            #expect(tail.body == whole.suffix(100))
            let malformed = try await request(url, "/library/1001", headers: [("Range", "bytes=x-")])
            #expect(malformed.status == 200)
            #expect(sameBytes(malformed.body, whole))
            #expect(try await request(url, "/library/1001", headers: [("Range", "bytes=\(whole.count)-")]).status == 416)
        }
    }

    @Test("catalog failures reach the page as JSON errors with a fitting status")
    func catalogErrors() async throws {
        try await withWebApp(catalogURL: URL(string: "http://127.0.0.1:9")!) { url, _, _, _ in
            let answer = try await request(url, "/api/search?term=love")
            #expect(answer.status == 502)
            #expect((answer.json?["message"] as? String)?.contains("cannot reach the catalog") == true)
            let empty = try await request(url, "/api/search?term=")
            #expect(empty.status == 400)
        }
    }

    @Test("a search limit that is not a number, or out of range, is refused with 400 before the catalog is asked")
    func searchLimits() async throws {
        // The catalog address refuses connections: an answer other than 400 would be a 502.
        try await withWebApp(catalogURL: URL(string: "http://127.0.0.1:9")!) { url, _, _, _ in
            for (limit, message) in [
                ("abc", #"the limit must be a number between 1 and 200, not "abc""#),
                ("0", "the limit must be between 1 and 200, not 0"),
                ("201", "the limit must be between 1 and 200, not 201"),
            ] {
                let answer = try await request(url, "/api/search?term=love&limit=\(limit)")
                #expect(answer.status == 400, "\(limit)")
                #expect(answer.json?["message"] as? String == message, "\(limit)")
            }
        }
    }

    @Test("a POST with a foreign Origin is refused and changes nothing")
    func foreignOrigin() async throws {
        try await withWebApp { url, web, catalog, _ in
            let answer = try await request(
                url, "/api/downloads/1001", method: .POST,
                headers: [("Origin", "http://evil.example"), ("X-HalfTunes-Token", web.token)])
            #expect(answer.status == 403)
            let referer = try await request(
                url, "/api/downloads/1001", method: .POST,
                headers: [("Referer", "http://evil.example/page"), ("X-HalfTunes-Token", web.token)])
            #expect(referer.status == 403)
            #expect(catalog.previewRequests.isEmpty)
            #expect((try await request(url, "/api/downloads").json?["downloads"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("a POST without the token, or with a wrong one, is refused", arguments: [nil, "0000", ""])
    func token(value: String?) async throws {
        try await withWebApp { url, _, catalog, _ in
            var headers = [("Origin", url.absoluteString)]
            if let value { headers.append(("X-HalfTunes-Token", value)) }
            let answer = try await request(url, "/api/downloads/1001", method: .POST, headers: headers)
            #expect(answer.status == 403)
            #expect(catalog.previewRequests.isEmpty)
        }
    }

    @Test("a foreign Host header (DNS rebinding) is refused, for reads too")
    func foreignHost() async throws {
        try await withWebApp { url, web, catalog, _ in
            let read = try await request(url, "/api/downloads", headers: [("Host", "evil.example:\(url.port!)")])
            #expect(read.status == 421)
            let write = try await request(
                url, "/api/downloads/1001", method: .POST,
                headers: [("Host", "evil.example"), ("Origin", "http://evil.example"), ("X-HalfTunes-Token", web.token)])
            #expect(write.status == 421)
            #expect(catalog.previewRequests.isEmpty)
            #expect(try await request(url, "/", headers: [("Host", "localhost:\(url.port!)")]).status == 200)
        }
    }

    @Test(
        "library files are found by track id only; paths are refused",
        arguments: [
            "/library/..%2F..%2Fetc%2Fpasswd", "/library/../../etc/passwd", "/library/1001%2F..", "/library/-1",
            "/library/99999", "/static/..%2Fapp.js", "/static/%2Fetc%2Fpasswd",
        ])
    func traversal(path: String) async throws {
        try await withWebApp { url, _, _, _ in
            let answer = try await request(url, path)
            #expect([400, 404].contains(answer.status), "\(path) → \(answer.status)")
            #expect(!String(decoding: answer.body, as: UTF8.self).contains("root:"))
        }
    }

    @Test("the API takes ids, not URLs")
    func idsOnly() async throws {
        try await withWebApp { url, web, _, _ in
            let answer = try await request(
                url, "/api/downloads/http%3A%2F%2Fevil.example%2Fx", method: .POST, headers: allowed(url, web))
            #expect(answer.status == 400)
        }
    }

    @Test("a batch starts with one lookup and answers its downloads in the order asked; bad ids are 400, unknown 404")
    func batch() async throws {
        try await withWebApp { url, web, catalog, _ in
            let before = catalog.lookupRequests.count
            let started = try await request(url, "/api/downloads?ids=1003,1001", method: .POST, headers: allowed(url, web))
            #expect(started.status == 200)
            let downloads = try #require(started.json?["downloads"] as? [[String: Any]])
            #expect(downloads.map { $0["id"] as? Int } == [1003, 1001])
            #expect(catalog.lookupRequests.count == before + 1)
            for bad in ["", "1001,,1002", "x", "-4"] {
                let answer = try await request(url, "/api/downloads?ids=\(bad)", method: .POST, headers: allowed(url, web))
                #expect(answer.status == 400, "ids=\(bad)")
            }
            let unknown = try await request(url, "/api/downloads?ids=1002,99999", method: .POST, headers: allowed(url, web))
            #expect(unknown.status == 404)
            #expect(unknown.json?["trackIds"] as? [Int] == [99999])
        }
    }
}
