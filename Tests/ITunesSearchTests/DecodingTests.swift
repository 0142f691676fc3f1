import Foundation
import Testing

@testable import ITunesSearch

@Suite("Decoding catalog responses")
struct DecodingTests {
    private func decode(_ json: String) throws -> [Track] {
        try SearchResponse.decodeTracks(from: Data(json.utf8))
    }

    @Test("a full result maps every field")
    func fullResult() throws {
        let tracks = try decode(
            """
            {"resultCount":1,"results":[{"wrapperType":"track","kind":"song","trackId":42,"trackName":"Song",
            "artistName":"Artist","collectionName":"Album","artworkUrl100":"https://example.com/a/100x100bb.jpg",
            "trackTimeMillis":201000,"previewUrl":"https://example.com/p.m4a?accessKey=1","primaryGenreName":"Pop",
            "releaseDate":"2006-08-07T12:00:00Z","trackExplicitness":"cleaned","someNewField":{"x":[1,2]}}]}
            """)
        let track = try #require(tracks.first)
        #expect(track.id == 42)
        #expect(track.name == "Song")
        #expect(track.artist == "Artist")
        #expect(track.album == "Album")
        #expect(track.artworkURL?.absoluteString == "https://example.com/a/100x100bb.jpg")
        #expect(track.durationMs == 201000)
        #expect(track.formattedDuration == "3:21")
        #expect(track.previewURL?.absoluteString == "https://example.com/p.m4a?accessKey=1")
        #expect(track.genre == "Pop")
        #expect(track.releaseDate == Date(timeIntervalSince1970: 1_154_952_000))
        #expect(track.explicitness == .cleaned)
        #expect(track.isDownloadable)
    }

    @Test("a result without a preview is kept and not downloadable; absent fields are nil")
    func sparseResult() throws {
        let tracks = try decode(#"{"results":[{"wrapperType":"track","kind":"song","trackId":7,"trackName":"Bare"}]}"#)
        let track = try #require(tracks.first)
        #expect(track.name == "Bare")
        #expect(track.artist == "Unknown Artist")
        #expect(track.album == nil && track.durationMs == nil && track.previewURL == nil && track.releaseDate == nil)
        #expect(!track.isDownloadable)
    }

    @Test("non-song results and results without an id are skipped")
    func skipsNonSongs() throws {
        let tracks = try decode(
            """
            {"results":[
             {"wrapperType":"artist","artistId":1,"artistName":"A"},
             {"wrapperType":"collection","collectionId":2,"collectionName":"C"},
             {"wrapperType":"track","kind":"music-video","trackId":3,"trackName":"Video"},
             {"wrapperType":"track","kind":"song","trackName":"No id"},
             {"wrapperType":"track","kind":"song","trackId":"5","trackName":"String id"},
             "not an object",
             {"wrapperType":"track","kind":"song","trackId":4,"trackName":"Kept"}]}
            """)
        #expect(tracks.map(\.id) == [4])
    }

    @Test("wrongly typed fields cost only that field")
    func wrongTypes() throws {
        let tracks = try decode(
            """
            {"results":[{"kind":"song","trackId":9,"trackName":"T","artistName":12,"trackTimeMillis":"long",
             "releaseDate":"yesterday","trackExplicitness":"spicy","previewUrl":null}]}
            """)
        let track = try #require(tracks.first)
        #expect(track.artist == "Unknown Artist")
        #expect(track.durationMs == nil && track.releaseDate == nil && track.explicitness == nil && track.previewURL == nil)
    }

    @Test(
        "preview and artwork URLs must be http(s) with a host",
        arguments: [
            "file:///etc/passwd", "ftp://example.com/p.m4a", "javascript:alert(1)", "https://", "/relative/p.m4a", "",
        ])
    func refusesOddSchemes(url: String) throws {
        let json = #"{"results":[{"kind":"song","trackId":1,"trackName":"T","previewUrl":"\#(url)","artworkUrl100":"\#(url)"}]}"#
        let track = try #require(try decode(json).first)
        #expect(track.previewURL == nil)
        #expect(track.artworkURL == nil)
        #expect(!track.isDownloadable)
    }

    @Test(
        "bodies that are not search responses say what is wrong",
        arguments: [
            ("<html>busy</html>", "not valid JSON"),
            (#"{"resultCount":0}"#, "no \"results\" field"),
            (#"{"results":{"a":1}}"#, "\"results\" has the wrong type"),
            ("[1,2,3]", "wrong type"),
            ("", "not valid JSON"),
        ])
    func malformed(body: String, says: String) {
        #expect {
            try decode(body)
        } throws: { error in
            guard let error = error as? CatalogError else { return false }
            return error.code == .malformedResponse && error.message.contains(says)
        }
    }

    @Test("an errorMessage body is a bad request carrying the API's message")
    func errorBody() {
        #expect {
            try decode(#"{"errorMessage":"Invalid value(s) for key(s): [country]","queryParameters":{}}"#)
        } throws: { error in
            (error as? CatalogError)?.code == .badRequest
                && (error as? CatalogError)?.message.contains("Invalid value(s) for key(s): [country]") == true
        }
    }

    @Test("HalfTunes' own JSON form of a track round-trips")
    func roundTrip() throws {
        let track = Track(
            id: 1, name: "N", artist: "A", album: nil, artworkURL: URL(string: "https://e.com/a.jpg"),
            durationMs: 1000, previewURL: nil, genre: "G", releaseDate: Date(timeIntervalSince1970: 0),
            explicitness: .explicit)
        let encoder = JSONEncoder()
        let data = try encoder.encode(track)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["downloadable"] as? Bool == false)
        #expect(object.keys.contains("album"))  // present as null: a stable shape for scripts
        #expect(try JSONDecoder().decode(Track.self, from: data) == track)
    }
}
