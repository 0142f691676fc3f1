import Foundation
import Hummingbird
import TestSupport
import Testing

@testable import ITunesSearch

/// Real Lookup answers (captured by others) served by a local server: albums, artists, a track,
/// an empty one, and artist and album searches.
@Suite(
    "Real iTunes lookups",
    .enabled(if: Fixtures.available, "../shared/fixtures/itunes is absent: real-lookup conformance tests skipped"))
struct LookupConformanceTests {
    /// Serves `body` as the answer to every lookup and search (with the live API's
    /// `text/javascript` type), runs `body` with a client of it, and returns what it returned and
    /// the queries the server saw.
    private func serving<T: Sendable>(
        _ body: Data, _ call: (ITunesCatalog) async throws -> T
    ) async throws -> (T, [String]) {
        let queries = RequestLog<String>()
        let router = Router()
        for path in ["/lookup", "/search"] {
            router.get(RouterPath(path)) { request, _ in
                queries.append(request.uri.query ?? "")
                return Response(
                    status: .ok, headers: [.contentType: "text/javascript; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
        }
        let result = try await withTestServer(router) { url in
            let catalog = try ITunesCatalog(
                configuration: CatalogConfiguration(baseURL: url, callsPerMinute: nil), logger: quietLogger("t"))
            return try await call(catalog)
        }
        return (result, queries.all)
    }

    /// A fixture's results, read with JSONSerialization (independently of the decoder).
    private func raw(_ fixture: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Fixtures.data(fixture)) as? [String: Any]
        return try #require(object?["results"] as? [[String: Any]])
    }

    /// The fixture with its results in reverse order (an answer whose order the client must not trust).
    private func reversed(_ fixture: String) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["resultCount": 0, "results": Array(raw(fixture).reversed())])
    }

    @Test("an album on two discs: its 18 songs in disc and track order, the 3 music videos left out")
    func twoDiscs() async throws {
        let (listing, queries) = try await serving(try reversed("lookup-album-songs.json")) {
            try await $0.lookup(collection: 1_441_458_047)
        }
        let album = try #require(listing)
        #expect(queries.count == 1)
        #expect(queries.first?.contains("id=1441458047") == true && queries.first?.contains("entity=song") == true)
        #expect(album.album.name == "A Night at the Opera (Deluxe Edition)" && album.album.artist == "Queen")
        #expect(album.album.artistId == 3_296_287 && album.album.trackCount == 21 && album.album.year == 1975)
        #expect(album.album.storeURL?.absoluteString.hasPrefix("https://music.apple.com/gb/album/") == true)
        let songs = try raw("lookup-album-songs.json").filter { $0["kind"] as? String == "song" }
        #expect(album.tracks.count == songs.count && songs.count == 18)
        let order = album.tracks.map { "\($0.discNumber ?? 0)-\($0.trackNumber ?? 0)" }
        #expect(order == (1...12).map { "1-\($0)" } + (1...6).map { "2-\($0)" })
        let videoIDs = try raw("lookup-album-songs.json").filter { $0["kind"] as? String == "music-video" }
            .compactMap { $0["trackId"] as? Int }
        #expect(videoIDs.count == 3 && Set(album.tracks.map(\.id)).isDisjoint(with: videoIDs))
        for track in album.tracks {
            let source = try #require(songs.first { $0["trackId"] as? Int == track.id })
            #expect(track.collectionId == source["collectionId"] as? Int)
            #expect(track.artistId == source["artistId"] as? Int)
            #expect(track.discCount == 2 && track.discNumber == source["discNumber"] as? Int)
            #expect(track.isDownloadable)
        }
    }

    @Test("an album the store offers only part of: trackCount 19, the 15 songs it has, gaps kept")
    func missingTracks() async throws {
        let (listing, _) = try await serving(try Fixtures.data("lookup-album-songs-missing-tracks.json")) {
            try await $0.lookup(collection: 255_636_575)
        }
        let album = try #require(listing)
        #expect(album.album.trackCount == 19 && album.tracks.count == 15)
        let numbers = Set(album.tracks.compactMap(\.trackNumber))
        #expect(numbers == Set(1...19).subtracting([3, 7, 12, 16]))
        #expect(album.tracks.map(\.trackNumber) == album.tracks.map(\.trackNumber).sorted { ($0 ?? 0) < ($1 ?? 0) })
    }

    @Test("an EP keeps its name as the store gives it, and the 2017 answer's old-style URLs are kept")
    func epAndOldStyle() async throws {
        let (ep, _) = try await serving(try Fixtures.data("lookup-album-songs-ep-us.json")) {
            try await $0.lookup(collection: 1_728_639_278)
        }
        #expect(ep?.album.name.hasSuffix(" - EP") == true && ep?.tracks.count == 6)
        let (slayer, _) = try await serving(try Fixtures.data("lookup-album-songs-gb-2017.json")) {
            try await $0.lookup(collection: 1_038_991_417)
        }
        #expect(slayer?.tracks.count == 10)
        #expect(slayer?.tracks.map(\.trackNumber) == Array(1...10))
        #expect(slayer?.tracks.allSatisfy { $0.previewURL?.scheme == "http" } == true)
    }

    @Test("an artist: the artist's own row, its link from artistLinkUrl; their albums decode too")
    func artist() async throws {
        let (listing, queries) = try await serving(try Fixtures.data("lookup-artist.json")) {
            try await $0.lookup(artist: 414_425, limit: 25)
        }
        #expect(listing?.artist.name == "Slayer" && listing?.artist.genre == "Metal")
        #expect(listing?.artist.storeURL?.absoluteString == "https://itunes.apple.com/gb/artist/slayer/id414425?uo=4")
        #expect(listing?.tracks.isEmpty == true)
        let query = try #require(queries.first)
        #expect(["id=414425", "entity=song", "limit=25", "sort=recent"].allSatisfy(query.contains))
        for (fixture, albums) in [("lookup-artist-albums.json", 22), ("lookup-artist-albums-amg.json", 35)] {
            let answer = try SearchResponse.decodeAnswer(from: Fixtures.data(fixture))
            #expect(answer.artists.count == 1 && answer.albums.count == albums && answer.tracks.isEmpty, "\(fixture)")
            let ids = try raw(fixture).compactMap {
                $0["wrapperType"] as? String == "collection" ? $0["collectionId"] as? Int : nil
            }
            #expect(answer.albums.map(\.id) == ids, "\(fixture)")
        }
    }

    @Test("a track id, an album id with entity=album, an unknown id")
    func otherLookups() async throws {
        let (asAlbum, _) = try await serving(try Fixtures.data("lookup-track-id.json")) {
            try await $0.lookup(collection: 1_038_991_877)
        }
        #expect(asAlbum == nil)
        let (track, _) = try await serving(try Fixtures.data("lookup-track-id.json")) {
            try await $0.lookup(id: 1_038_991_877)
        }
        #expect(track?.name == "Raining Blood" && track?.collectionId == 1_038_991_417)
        let (bare, _) = try await serving(try Fixtures.data("lookup-album-entity-album.json")) {
            try await $0.lookup(collection: 1_038_991_417)
        }
        #expect(bare?.album.name == "Reign In Blood" && bare?.tracks.isEmpty == true)
        let (noAlbum, _) = try await serving(try Fixtures.data("lookup-empty.json")) { try await $0.lookup(collection: 999_666) }
        let (noArtist, _) = try await serving(try Fixtures.data("lookup-empty.json")) { try await $0.lookup(artist: 999_666) }
        #expect(noAlbum == nil && noArtist == nil)
    }

    @Test("searches by artist name answer artists and albums: no songs, no error")
    func artistTermSearches() async throws {
        for (fixture, kind, count) in [
            ("search-artistterm-musicartist.json", "artist", 56), ("search-artistterm-album.json", "collection", 68),
        ] {
            let (tracks, _) = try await serving(try Fixtures.data(fixture)) {
                try await $0.search(SearchQuery(term: "slayer", field: .artist))
            }
            #expect(tracks.isEmpty, "\(fixture)")
            let answer = try SearchResponse.decodeAnswer(from: Fixtures.data(fixture))
            let found = kind == "artist" ? answer.artists.count : answer.albums.count
            let rows = try raw(fixture).count
            #expect(found == count && found == rows, "\(fixture)")
        }
    }

    @Test("bad ids and limits are refused before any call")
    func badInput() async throws {
        let (errors, queries) = try await serving(Data("{}".utf8)) { catalog in
            var messages: [String] = []
            for call in [
                { try await catalog.lookup(collection: 0) as Any }, { try await catalog.lookup(artist: -1) as Any },
                { try await catalog.lookup(artist: 1, limit: 201) as Any },
            ] as [() async throws -> Any] {
                do { _ = try await call() } catch let error as CatalogError { messages.append(error.message) }
            }
            return messages
        }
        #expect(errors.count == 3 && queries.isEmpty)
        #expect(errors.last == "the limit must be between 1 and 200, not 201")
    }
}
