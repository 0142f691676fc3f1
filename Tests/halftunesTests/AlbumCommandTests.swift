import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `halftunes album`, `artist`, `download --album` and `export --album`, as processes against the
/// DemoCatalog (whose two-disc album lists a music video among its tracks).
@Suite("halftunes album and artist", .timeLimit(.minutes(1)))
struct AlbumCommandTests {
    /// The DemoCatalog's album with a music video, and its songs in album order.
    private func twoDiscAlbum(_ catalog: DemoCatalog) throws -> (video: DemoTrack, songs: [DemoTrack]) {
        let video = try #require(catalog.videos.first)
        return (video, catalog.album(id: video.collectionId))
    }

    @Test("album ID: a heading, then the songs in disc and track order; a track's id gives its album")
    func albumTable() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let (video, songs) = try twoDiscAlbum(catalog)
                let byAlbum = try await runHalftunes(["album", String(video.collectionId)], home: home, catalog: url)
                #expect(byAlbum.status == 0, "\(byAlbum.stderr)")
                let lines = byAlbum.stdout.split(separator: "\n").map(String.init)
                #expect(
                    lines.first
                        == "\(video.album) — \(video.artist) (2025), album \(video.collectionId): 5 of its 6 tracks offered")
                let rows = lines.dropFirst(2).map { $0.split(separator: " ").map(String.init) }
                #expect(rows.map { $0.first ?? "" } == ["1.1", "1.2", "1.3", "2.1", "2.2"])
                #expect(rows.map { $0.last ?? "" } == songs.map { String($0.id) })
                #expect(!byAlbum.stdout.contains(video.name))
                let byTrack = try await runHalftunes(["album", String(songs[3].id)], home: home, catalog: url)
                #expect(byTrack.stdout == byAlbum.stdout)
            }
        }
    }

    @Test("album --json: the search schema with the album as a header; artist --json with the artist")
    func json() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let (video, songs) = try twoDiscAlbum(catalog)
                let album = try await runHalftunes(["album", "--json", String(video.collectionId)], home: home, catalog: url)
                let document = try #require(ndjson(album.stdout).first)
                let header = try #require(document["album"] as? [String: Any])
                #expect(header["id"] as? Int == video.collectionId && header["name"] as? String == video.album)
                #expect(header["trackCount"] as? Int == 6 && header["year"] as? Int == 2025 && document["v"] as? Int == 1)
                let results = try #require(document["results"] as? [[String: Any]])
                #expect(results.compactMap { $0["id"] as? Int } == songs.map(\.id))
                #expect(
                    results.allSatisfy {
                        $0["collectionId"] as? Int == video.collectionId && $0["state"] as? String == "notDownloaded"
                    })
                let artist = try await runHalftunes(
                    ["artist", "--json", "--limit", "3", String(video.artistId)], home: home, catalog: url)
                let artistDocument = try #require(ndjson(artist.stdout).first)
                #expect((artistDocument["artist"] as? [String: Any])?["name"] as? String == video.artist)
                let newest = try #require(artistDocument["results"] as? [[String: Any]])
                #expect(newest.count == 3 && newest.allSatisfy { $0["collectionId"] as? Int == video.collectionId })
            }
        }
    }

    @Test("download --album: every song with a preview lands; one without is named and skipped; export --album in album order")
    func downloadAlbum() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let (video, songs) = try twoDiscAlbum(catalog)
                let result = try await runHalftunes(
                    ["download", "--album", String(video.collectionId)], home: home, catalog: url)
                #expect(result.status == 0, "\(result.stderr)")
                let library = filesIn(home.appendingPathComponent("library")).filter { $0.hasSuffix(".wav") }
                #expect(library.count == songs.count)
                #expect(Set(catalog.previewRequests.map(\.trackId)) == Set(songs.map(\.id)))
                let export = try await runHalftunes(["export", "--album", String(songs[0].id)], home: home, catalog: url)
                let entries = export.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }
                #expect(entries.count == songs.count)
                for (entry, song) in zip(entries, songs) { #expect(entry.contains("[\(song.id)]"), "\(entry)") }
                // An album with a song the catalog has no preview for.
                let gap = try #require(catalog.tracks.first { !$0.hasPreview })
                let partial = try await runHalftunes(["download", "--album", String(gap.collectionId)], home: home, catalog: url)
                #expect(partial.status == 0)
                #expect(partial.stderr.contains("\"\(gap.name)\" has no preview; skipped"), "\(partial.stderr)")
                #expect(!catalog.previewRequests.contains { $0.trackId == gap.id })
            }
        }
    }

    @Test("an unknown album or artist: one line, exit 3; a bad id: usage, exit 64; no ids at all: usage")
    func badInput() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { home in
                let unknown = try await runHalftunes(["album", "77"], home: home, catalog: url)
                #expect(
                    unknown.status == 3 && unknown.stderr == "halftunes: the catalog has no album 77 (nor a track of that id)\n")
                let artist = try await runHalftunes(["artist", "77"], home: home, catalog: url)
                #expect(artist.status == 3 && artist.stderr.hasPrefix("halftunes: the catalog has no artist 77"))
                let bad = try await runHalftunes(["download", "--album", "x1"], home: home, catalog: url)
                #expect(bad.status == 64 && bad.stderr.hasPrefix("halftunes: the value 'x1' is invalid for '--album <id>'"))
                let none = try await runHalftunes(["download"], home: home, catalog: url)
                #expect(none.status == 64 && none.stderr.hasPrefix("halftunes: give track ids, or --album ID"))
                let notHere = try await runHalftunes(["export", "--album", "1001"], home: home, catalog: url)
                #expect(notHere.status == 3 && notHere.stderr.contains("download --album 1001"))
            }
        }
    }
}
