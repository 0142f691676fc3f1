import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import ITunesSearch

/// Albums and artists from the DemoCatalog over the wire: the catalog answers an album's songs
/// out of track order, with a music video among them, as the real one can.
@Suite("Album and artist lookups", .timeLimit(.minutes(1)))
struct AlbumLookupTests {
    private func client(_ url: URL) throws -> ITunesCatalog {
        try ITunesCatalog(configuration: CatalogConfiguration(baseURL: url, callsPerMinute: nil), logger: quietLogger("t"))
    }

    @Test("an album on two discs lists in disc and track order, its music video left out")
    func twoDiscAlbum() async throws {
        try await withDemoCatalog { demo, url in
            let video = try #require(demo.videos.first)
            let songs = demo.album(id: video.collectionId)
            let listing = try #require(try await client(url).lookup(collection: video.collectionId))
            #expect(listing.album.name == video.album && listing.album.artist == video.artist)
            #expect(listing.album.trackCount == songs.count + 1)
            #expect(listing.tracks.map(\.id) == songs.map(\.id))
            #expect(!listing.tracks.contains { $0.id == video.id })
            #expect(listing.tracks.map { "\($0.discNumber ?? 0).\($0.trackNumber ?? 0)" } == ["1.1", "1.2", "1.3", "2.1", "2.2"])
            #expect(listing.tracks.allSatisfy { $0.collectionId == video.collectionId && $0.artistId == video.artistId })
            #expect(demo.lookupRequests == [[video.collectionId]])
        }
    }

    @Test("an artist's songs come newest first, at most the limit; an unknown id is nil")
    func artist() async throws {
        try await withDemoCatalog { demo, url in
            let catalog = try client(url)
            let someone = try #require(demo.videos.first)
            let all = demo.songs(ofArtist: someone.artistId)
            #expect(Set(all.map(\.collectionId)).count >= 2)
            let listing = try #require(try await catalog.lookup(artist: someone.artistId, limit: 200))
            #expect(listing.artist.name == someone.artist)
            #expect(Set(listing.tracks.map(\.id)) == Set(all.map(\.id)))
            let dates = listing.tracks.compactMap(\.releaseDate)
            #expect(dates.count == all.count && dates == dates.sorted(by: >))
            let three = try #require(try await catalog.lookup(artist: someone.artistId, limit: 3))
            #expect(three.tracks.map(\.id) == Array(listing.tracks.prefix(3).map(\.id)))
            let (noArtist, noAlbum) = (try await catalog.lookup(artist: 424_242), try await catalog.lookup(collection: 424_242))
            // A track id is not an album.
            let trackAsAlbum = try await catalog.lookup(collection: all[0].id)
            #expect(noArtist == nil && noAlbum == nil && trackAsAlbum == nil)
        }
    }

    @Test("a second look at the same album is answered from the cache")
    func cached() async throws {
        try await withDemoCatalog { demo, url in
            let catalog = try client(url)
            let id = demo.tracks[0].collectionId
            let first = try await catalog.lookup(collection: id)
            let second = try await catalog.lookup(collection: id)
            #expect(first != nil && first == second)
            #expect(demo.lookupRequests.count == 1)
        }
    }
}
