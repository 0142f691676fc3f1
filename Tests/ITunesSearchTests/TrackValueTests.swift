import Foundation
import ITunesSearch
import Testing

/// A track shares its fields between copies, and still behaves as a value.
@Suite("Track as a value")
struct TrackValueTests {
    static let track = Track(
        id: 42, name: "Song", artist: "Band", album: "Album", artworkURL: URL(string: "https://a.example/100.jpg"),
        durationMs: 215_000, previewURL: URL(string: "https://p.example/42.m4a"), genre: "Pop",
        releaseDate: Date(timeIntervalSince1970: 1_000_000_000), explicitness: .cleaned,
        storeURL: URL(string: "https://s.example/42"), trackNumber: 3, trackCount: 12)

    @Test("a change to a copy leaves the original as it was, field by field")
    func copiesAreIndependent() {
        let original = Self.track
        var copy = original
        copy.name = "Other"
        copy.previewURL = nil
        copy.trackNumber = nil
        #expect(original.name == "Song")
        #expect(original.previewURL == URL(string: "https://p.example/42.m4a"))
        #expect(original.trackNumber == 3)
        #expect(copy.name == "Other" && copy.previewURL == nil && copy.trackNumber == nil)
        #expect(copy.artist == "Band" && copy.trackCount == 12 && copy.explicitness == .cleaned)
        #expect(copy != original)
    }

    @Test("tracks built apart with the same fields are equal and hash alike; any field tells them apart")
    func equalityIsByFields() {
        let twin = Track(
            id: 42, name: "Song", artist: "Band", album: "Album", artworkURL: URL(string: "https://a.example/100.jpg"),
            durationMs: 215_000, previewURL: URL(string: "https://p.example/42.m4a"), genre: "Pop",
            releaseDate: Date(timeIntervalSince1970: 1_000_000_000), explicitness: .cleaned,
            storeURL: URL(string: "https://s.example/42"), trackNumber: 3, trackCount: 12)
        #expect(twin == Self.track)
        #expect(Set([twin, Self.track]).count == 1)
        let changes: [(inout Track) -> Void] = [
            { $0.id = 43 }, { $0.name = "x" }, { $0.artist = "x" }, { $0.album = nil },
            { $0.artworkURL = nil }, { $0.durationMs = 1 }, { $0.previewURL = nil }, { $0.genre = nil },
            { $0.releaseDate = nil }, { $0.explicitness = .explicit }, { $0.storeURL = nil },
            { $0.trackNumber = 4 }, { $0.trackCount = nil },
        ]
        for (index, change) in changes.enumerated() {
            var other = twin
            change(&other)
            #expect(other != Self.track, "change \(index) went unnoticed")
        }
    }
}
