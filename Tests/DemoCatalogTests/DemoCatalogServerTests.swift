import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import DemoCatalog

/// The DemoCatalog as a client sees it, over a real socket.
@Suite("DemoCatalog server", .timeLimit(.minutes(1)))
struct DemoCatalogServerTests {
    struct Answer {
        let status: Int
        let headers: HTTPHeaders
        let body: Data
        func header(_ name: String) -> String? { headers.first(name: name) }
    }

    private func get(_ url: String, method: HTTPMethod = .GET, headers: [(String, String)] = []) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 10 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
    }

    private func json(_ answer: Answer) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        let results = try #require(object?["results"] as? [[String: Any]])
        #expect(object?["resultCount"] as? Int == results.count)
        return results
    }

    @Test("the built-in catalog: about 40 tracks, Japanese and emoji names, one without a preview")
    func builtIn() {
        let tracks = DemoCatalog(logger: quietLogger("t")).tracks
        #expect((35...45).contains(tracks.count))
        #expect(Set(tracks.map(\.id)).count == tracks.count)
        #expect(Set(tracks.map(\.artist)).count >= 4)
        #expect(tracks.contains { $0.name.unicodeScalars.contains { (0x3040...0x30FF).contains($0.value) } })
        #expect(tracks.contains { $0.name.unicodeScalars.contains { $0.properties.isEmojiPresentation } })
        #expect(tracks.filter { !$0.hasPreview }.count == 1)
    }

    @Test("/search answers in the API's shape with URLs pointing back at itself")
    func search() async throws {
        try await withDemoCatalog { catalog, url in
            let results = try json(try await get("\(url)/search?term=love&media=music&entity=song&limit=50"))
            let expected = catalog.tracks.filter { "\($0.name) \($0.artist) \($0.album)".lowercased().contains("love") }
            #expect(results.compactMap { $0["trackId"] as? Int } == expected.map(\.id))
            for result in results {
                #expect(result["wrapperType"] as? String == "track")
                #expect(result["kind"] as? String == "song")
                #expect((result["previewUrl"] as? String)?.hasPrefix("\(url)/previews/") == true)
                #expect((result["artworkUrl100"] as? String)?.hasPrefix("\(url)/artwork/") == true)
            }
        }
    }

    @Test("/search honours limit, matches every word, and finds Unicode terms")
    func searchOptions() async throws {
        try await withDemoCatalog { _, url in
            #expect(try json(try await get("\(url)/search?term=the&limit=2")).count == 2)
            let both = try json(try await get("\(url)/search?term=paper+boats"))
            #expect(both.map { $0["trackName"] as? String } == ["Paper Boats"])
            let japanese = try json(try await get("\(url)/search?term=%E3%83%A9%E3%83%96"))  // ラブ
            #expect(japanese.map { $0["trackName"] as? String } == ["ラブソング"])
            let ampersand = try json(try await get("\(url)/search?term=salt+%26+vinegar"))
            #expect(ampersand.map { $0["trackName"] as? String } == ["Salt & Vinegar"])
            #expect(try json(try await get("\(url)/search?term=zzzz")).isEmpty)
        }
    }

    @Test("bad parameters get the API's 400 body")
    func badParameters() async throws {
        try await withDemoCatalog { _, url in
            let answer = try await get("\(url)/search?term=x&country=USA")
            #expect(answer.status == 400)
            let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            #expect((object?["errorMessage"] as? String)?.contains("country") == true)
            #expect(try await get("\(url)/search?term=x&entity=album").status == 400)
        }
    }

    @Test("/lookup finds tracks by id, one or several; the preview-less track has no previewUrl")
    func lookup() async throws {
        try await withDemoCatalog { catalog, url in
            let noPreview = try #require(catalog.tracks.first { !$0.hasPreview })
            let results = try json(try await get("\(url)/lookup?id=1001,\(noPreview.id),999999"))
            #expect(results.compactMap { $0["trackId"] as? Int } == [1001, noPreview.id])
            #expect(results[0]["previewUrl"] != nil)
            #expect(results[1]["previewUrl"] == nil)
        }
    }

    @Test("a preview is a ~30 s WAV with validators; each track sounds different")
    func preview() async throws {
        try await withDemoCatalog { catalog, url in
            let answer = try await get("\(url)/previews/1001.wav")
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type") == "audio/wav")
            #expect(answer.header("Accept-Ranges") == "bytes")
            #expect(answer.header("ETag")?.hasPrefix("\"") == true)
            #expect(answer.header("Last-Modified")?.hasSuffix("GMT") == true)
            #expect(answer.header("Content-Length") == String(answer.body.count))
            #expect(sameBytes(answer.body, await catalog.preview(for: 1001)?.data))
            #expect(answer.body.prefix(4) == Data("RIFF".utf8))
            #expect(answer.body[8..<12] == Data("WAVE".utf8))
            let seconds = Double(answer.body.count - 44) / Double(catalog.synthesizer.sampleRate * 2)
            #expect((29.0...31.0).contains(seconds))
            let other = try await get("\(url)/previews/1002.wav")
            #expect(sha256Hex(other.body) != sha256Hex(answer.body))
            #expect(try await get("\(url)/previews/999999.wav").status == 404)
            let noPreview = try #require(catalog.tracks.first { !$0.hasPreview })
            #expect(try await get("\(url)/previews/\(noPreview.id).wav").status == 404)
        }
    }

    @Test("Range gives 206 with Content-Range and exactly those bytes")
    func range() async throws {
        try await withDemoCatalog { catalog, url in
            let full = try #require(await catalog.preview(for: 1003))
            let length = full.data.count
            let middle = try await get("\(url)/previews/1003.wav", headers: [("Range", "bytes=1000-1999")])
            #expect(middle.status == 206)
            #expect(middle.header("Content-Range") == "bytes 1000-1999/\(length)")
            #expect(middle.body == full.data[1000..<2000])
            let tail = try await get("\(url)/previews/1003.wav", headers: [("Range", "bytes=-100")])
            #expect(tail.body == full.data.suffix(100))
            #expect(tail.header("Content-Range") == "bytes \(length - 100)-\(length - 1)/\(length)")
        }
    }

    @Test("a range past the end is 416 with the length")
    func unsatisfiable() async throws {
        try await withDemoCatalog { catalog, url in
            let length = try #require(await catalog.preview(for: 1003)).data.count
            let answer = try await get("\(url)/previews/1003.wav", headers: [("Range", "bytes=\(length)-")])
            #expect(answer.status == 416)
            #expect(answer.header("Content-Range") == "bytes */\(length)")
            #expect(answer.body.isEmpty)
        }
    }

    @Test("If-Range with the current ETag or date resumes; a stale one gets the whole new file")
    func ifRange() async throws {
        try await withDemoCatalog { catalog, url in
            let first = try await get("\(url)/previews/1004.wav")
            let etag = try #require(first.header("ETag"))
            let modified = try #require(first.header("Last-Modified"))
            let resumed = try await get("\(url)/previews/1004.wav", headers: [("Range", "bytes=500-"), ("If-Range", etag)])
            #expect(resumed.status == 206)
            #expect(sameBytes(resumed.body, first.body.dropFirst(500)))
            let byDate = try await get("\(url)/previews/1004.wav", headers: [("Range", "bytes=500-"), ("If-Range", modified)])
            #expect(byDate.status == 206)

            catalog.changeContent(of: 1004)
            let changed = try await get("\(url)/previews/1004.wav", headers: [("Range", "bytes=500-"), ("If-Range", etag)])
            #expect(changed.status == 200)
            #expect(changed.header("ETag") != etag)
            #expect(changed.body.count == first.body.count)
            #expect(changed.body != first.body)
            #expect(sameBytes(changed.body, await catalog.preview(for: 1004)?.data))
        }
    }

    @Test("HEAD gives the headers and no body")
    func head() async throws {
        try await withDemoCatalog { catalog, url in
            let answer = try await get("\(url)/previews/1001.wav", method: .HEAD)
            #expect(answer.status == 200)
            #expect(answer.header("Content-Length") == String(catalog.synthesizer.byteCount))
            #expect(await catalog.preview(for: 1001)?.etag == answer.header("ETag"))
            #expect(answer.body.isEmpty)
        }
    }

    @Test("artwork is served at the URL the search advertises")
    func artwork() async throws {
        try await withDemoCatalog { _, url in
            let results = try json(try await get("\(url)/lookup?id=1019"))
            let artwork = try #require(results.first?["artworkUrl100"] as? String)
            let answer = try await get(artwork)
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type") == "image/svg+xml")
            #expect(String(decoding: answer.body, as: UTF8.self).hasPrefix("<svg"))
            #expect(try await get("\(url)/artwork/424242/100x100bb.svg").status == 404)
        }
    }
}

/// The DemoCatalog's lookups of albums and artists, in the real API's shape.
@Suite("DemoCatalog lookups", .timeLimit(.minutes(1)))
struct DemoCatalogLookupTests {
    private func object(_ url: String) async throws -> (status: UInt, body: [String: Any]?) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (response.status.code, try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
    }

    private func results(_ url: String) async throws -> [[String: Any]] {
        try #require(try await object(url).body?["results"] as? [[String: Any]])
    }

    @Test("an album id with entity=song: the collection, then its songs and its music video")
    func album() async throws {
        try await withDemoCatalog { catalog, url in
            let video = try #require(catalog.videos.first)
            let rows = try await results("\(url)/lookup?id=\(video.collectionId)&entity=song")
            #expect(rows.first?["wrapperType"] as? String == "collection")
            #expect(rows.first?["collectionId"] as? Int == video.collectionId)
            #expect(
                rows.dropFirst().filter { $0["kind"] as? String == "song" }.count == catalog.album(id: video.collectionId).count)
            #expect(rows.filter { $0["kind"] as? String == "music-video" }.compactMap { $0["trackId"] as? Int } == [video.id])
            let bare = try await results("\(url)/lookup?id=\(video.collectionId)")
            #expect(bare.count == 1)
        }
    }

    @Test("an artist id: the artist, with entity=album their albums, with entity=song their songs")
    func artist() async throws {
        try await withDemoCatalog { catalog, url in
            let artist = try #require(catalog.videos.first).artistId
            let albums = try await results("\(url)/lookup?id=\(artist)&entity=album")
            #expect(albums.first?["wrapperType"] as? String == "artist")
            #expect(albums.dropFirst().allSatisfy { $0["wrapperType"] as? String == "collection" } && albums.count >= 3)
            let songs = try await results("\(url)/lookup?id=\(artist)&entity=song&sort=recent&limit=2")
            #expect(songs.count == 3)
            let dates = songs.dropFirst().compactMap { $0["releaseDate"] as? String }
            #expect(dates == dates.sorted(by: >))
            let bogus = try await object("\(url)/lookup?id=\(artist)&entity=bogus")
            #expect(bogus.status == 400 && (bogus.body?["errorMessage"] as? String)?.contains("resultEntity") == true)
        }
    }
}
