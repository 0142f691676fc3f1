import Foundation
import ITunesSearch
import Testing

@testable import HalfTunesKit

/// A download's tag: the track it downloads, journaled with the transfer (pure).
@Suite("Download tags")
struct DownloadTagTests {
    let track = Track(
        id: 1001, name: "Love in the Harbour", artist: "The Paper Lanterns", album: "Harbour", durationMs: 30_000,
        previewURL: URL(string: "http://127.0.0.1/previews/1001.m4a"))

    @Test("a tag is the track's JSON, the very text the library stores, and reads back as the track")
    func current() throws {
        let tag = DownloadTag(track: track).encoded
        // The document JSONEncoder makes of the track, read by JSONSerialization.
        let document = try JSONSerialization.jsonObject(with: Data(tag.utf8)) as? NSDictionary
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(track)) as? NSDictionary
        #expect(document != nil && document == encoded)
        #expect(DownloadTag.trackJSON(tag) == tag)
        #expect(DownloadTag(tag)?.track == track)
    }

    @Test("a tag journaled by HalfTunes 0.1 ({\"track\": …}) still reads, and its JSON is encoded afresh")
    func older() throws {
        let inner = String(decoding: try JSONEncoder().encode(track), as: UTF8.self)
        let tag = #"{"track":"# + inner + "}"
        #expect(DownloadTag(tag)?.track == track)
        #expect(DownloadTag.trackJSON(tag) == nil)
    }

    @Test("a tag that is not a track is no download's", arguments: [nil, "", "{}", "not json", #"{"track":1}"#])
    func foreign(tag: String?) {
        #expect(DownloadTag(tag) == nil)
    }
}
