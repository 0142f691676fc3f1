import Foundation
import ITunesSearch
import TestSupport
import Testing

@testable import HalfTunesKit
@testable import HalfTunesTerminal

@Suite("Wire schema and listing text (pure)")
struct WireAndListingTests {
    private let track = Track(id: 7, name: "Paper Boats", artist: "The Paper Lanterns", album: "Harbour Lights")

    @Test("every event carries v, id and state; each decodes back to the event it came from")
    func events() throws {
        let file = URL(fileURLWithPath: "/music/a.wav")
        let events: [DownloadEvent] = [
            .progress(trackID: 7, received: 10, expected: 20), .stateChanged(trackID: 7, state: .paused),
            .completed(trackID: 7, file: file), .failed(trackID: 7, reason: "gone"), .removed(trackID: 7),
            .retrying(trackID: 7, reason: "the server answered HTTP 503", delay: .milliseconds(2_500)),
        ]
        let states: [DownloadState] = [.downloading, .paused, .downloaded, .failed, .notDownloaded, .downloading]
        #expect(events.map { WireEvent($0).state } == states)
        for event in events {
            let object = try #require(
                try JSONSerialization.jsonObject(with: WireEncoding.data(WireEvent(event))) as? [String: Any])
            #expect(object["v"] as? Int == 1 && object["id"] as? Int == 7 && object["state"] is String)
            #expect(try JSONDecoder().decode(WireEvent.self, from: WireEncoding.data(WireEvent(event))).downloadEvent == event)
        }
    }

    @Test("a retrying event on the wire: its reason and the seconds until the next attempt")
    func retrying() throws {
        let event = DownloadEvent.retrying(trackID: 7, reason: "the server answered HTTP 503", delay: .milliseconds(2_500))
        #expect(
            try WireEncoding.line(WireEvent(event))
                == #"{"event":"retrying","id":7,"reason":"the server answered HTTP 503","retryAfter":2.5,"state":"downloading","v":1}"#
        )
    }

    @Test("a track never downloaded is notDownloaded, not queued")
    func neverDownloaded() {
        let document = DownloadDocument(track, status: nil)
        #expect(document.state == .notDownloaded)
        #expect(document.status.state == .notDownloaded)
    }

    @Test("the listing's text: downloads with progress and reason, then the library's files")
    func listing() {
        let folder = URL(fileURLWithPath: "/music")
        #expect(
            ListingText.render(Listing(downloads: [], library: []), libraryFolder: folder).hasPrefix("Nothing downloaded yet."))
        var failed = DownloadDocument(track, status: nil)
        (failed.state, failed.receivedBytes, failed.expectedBytes, failed.reason) = (.failed, 500_000, 1_000_000, "gone")
        var kept = DownloadDocument(track, status: nil)
        (kept.state, kept.receivedBytes, kept.file) = (.downloaded, 1_300_000, "/music/The Paper Lanterns - Paper Boats [7].wav")
        kept.warning = "kept as downloaded, without tags: not a WAV"
        var japanese = DownloadDocument(Track(id: 19, name: "ラブソング", artist: "さくらバンド"), status: nil)
        (japanese.state, japanese.receivedBytes, japanese.file) = (.downloaded, 999, "/music/さくらバンド - ラブソング [19].wav")
        let text = ListingText.render(Listing(downloads: [failed], library: [kept, japanese]), libraryFolder: folder)
        #expect(
            text == """
                Downloads
                STATE          PROGRESS  TITLE        ARTIST              ID  NOTE
                failed  50.0% of 1.0 MB  Paper Boats  The Paper Lanterns  7   gone

                Library (/music): 2 tracks, 1.3 MB
                TITLE        ARTIST                   SIZE  ID  FILE
                Paper Boats  The Paper Lanterns     1.3 MB  7   The Paper Lanterns - Paper Boats [7].wav (kept as downloaded, without tags: not a WAV)
                ラブソング   さくらバンド        999 bytes  19  さくらバンド - ラブソング [19].wav

                """)
        // Fitted to a narrow terminal, by display width.
        let narrow = ListingText.render(
            Listing(downloads: [failed], library: [kept, japanese]), libraryFolder: folder, maxWidth: 60)
        #expect(narrow.split(separator: "\n").allSatisfy { DisplayWidth.of(String($0)) <= 60 })
    }
}

@Suite("Wire writer (pure)")
struct WireWriterTests {
    /// Strings with everything JSON escapes, and what it does not.
    static let hostile = [
        "plain", "", "quote \" and backslash \\ and slash /", "tab\tnew\nline\rcr", "\u{0}\u{1}\u{8}\u{c}\u{1f}\u{7f}",
        "Ünïcode 歌 🎵 \u{2028}\u{2029} \u{202E}rtl", "emoji 👩‍👩‍👧 family", String(repeating: "long ", count: 200),
    ]

    private func documents() -> [DownloadDocument] {
        var documents: [DownloadDocument] = []
        for (index, text) in Self.hostile.enumerated() {
            let track = Track(
                id: index + 1, name: text, artist: "Artist \(text)", album: index % 2 == 0 ? text : nil,
                artworkURL: index % 3 == 0 ? URL(string: "http://127.0.0.1:8080/artwork/\(index)/100x100bb.jpg?a=b&c=%20") : nil,
                durationMs: index % 2 == 1 ? index * 1000 : nil, previewURL: URL(string: "https://audio.example/p/\(index).m4a"),
                trackNumber: index % 2 == 0 ? index + 1 : nil, collectionId: index % 3 == 1 ? 800_000 + index : nil,
                artistId: index % 2 == 1 ? 900_000 + index : nil, discNumber: index % 4 == 0 ? 2 : nil)
            for state in DownloadState.allCases {
                var document = DownloadDocument(track, status: nil)
                document.state = state
                document.receivedBytes = Int64(index) * 1_000_003
                document.expectedBytes = index % 2 == 0 ? Int64.max : nil
                document.reason = state == .failed ? text : nil
                document.file = state == .downloaded ? "/music/\(text).wav" : nil
                documents.append(document)
            }
        }
        return documents
    }

    @Test("listings, search results and documents are the same bytes as JSONEncoder's")
    func sameBytes() throws {
        let documents = documents()
        for document in documents {
            #expect(try WireEncoding.data(document) == WireEncoding.encoderData(document))
        }
        let listings = [
            Listing(downloads: [], library: []),
            Listing(
                downloads: Array(documents.prefix(5)), library: documents, libraryCount: 12, libraryBytes: 1 << 40, next: "17",
                cursor: "99", removed: [3, 1, 2]),
        ]
        for listing in listings {
            #expect(try WireEncoding.data(listing) == WireEncoding.encoderData(listing))
        }
        let results = SearchResults(results: documents)
        #expect(try WireEncoding.data(results) == WireEncoding.encoderData(results))
    }
}
