import Foundation
import TestSupport
import Testing

@testable import ITunesSearch

/// `Track.jsonText` against `JSONEncoder`: both documents are read with JSONSerialization and
/// compared as objects, and the text decodes back to the same track.
@Suite("A track's JSON, written directly")
struct TrackJSONTests {
    private func expectSameDocument(_ track: Track, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let direct = Data(track.jsonText.utf8)
        let encoded = try JSONEncoder().encode(track)
        let ours = try JSONSerialization.jsonObject(with: direct) as? NSDictionary
        let theirs = try JSONSerialization.jsonObject(with: encoded) as? NSDictionary
        #expect(ours != nil && ours == theirs, "\(track.jsonText)", sourceLocation: sourceLocation)
        #expect(try JSONDecoder().decode(Track.self, from: direct) == track, sourceLocation: sourceLocation)
    }

    @Test("every field, none, and text that must be escaped")
    func edgeCases() throws {
        let full = Track(
            id: 1_440_857_781, name: "Price Tag (feat. B.o.B)", artist: "Jessie J", album: "Who You Are (Platinum Edition)",
            artworkURL: URL(string: "https://is1-ssl.mzstatic.com/image/thumb/Music/a/b/100x100bb.jpg"),
            durationMs: 223_219, previewURL: URL(string: "https://audio-ssl.itunes.apple.com/a/b/mzaf_1.plus.aac.p.m4a"),
            genre: "Pop", releaseDate: Date(timeIntervalSince1970: 1_296_432_000.25), explicitness: .notExplicit,
            storeURL: URL(string: "https://music.apple.com/us/album/price-tag?i=1440857781&uo=4"), trackNumber: 3,
            trackCount: 13)
        try expectSameDocument(full)
        try expectSameDocument(Track(id: 1, name: "", artist: ""))
        try expectSameDocument(
            Track(
                id: 2, name: "quote \" backslash \\ slash / newline \n tab \t bell \u{7} nul \u{0} del \u{7F}",
                artist: "Sigur Rós · 坂本龍一 · 🎹 · \u{202E}evil", album: "\u{1F}\u{2028}\u{2029}",
                releaseDate: Date(timeIntervalSinceReferenceDate: -978_307_200.5), explicitness: .explicit))
    }

    @Test(
        "every track of the real responses",
        .enabled(if: Fixtures.available, "../shared/fixtures/itunes is absent: real-response tracks skipped"))
    func realTracks() throws {
        var count = 0
        for fixture in ["search-price-tag-us-50.json", "search-hellogoodbye-2.json"] {
            for track in try SearchResponse.decodeTracks(from: Fixtures.data(fixture)) {
                try expectSameDocument(track)
                count += 1
            }
        }
        #expect(count == 52)
    }
}
