import Foundation
import ITunesSearch
import TestSupport
import Testing

@testable import HalfTunesKit

@Suite("Wire schema and listing text (pure)")
struct WireAndListingTests {
    private let track = Track(id: 7, name: "Paper Boats", artist: "The Paper Lanterns", album: "Harbour Lights")

    @Test("every event carries v, id and state; each decodes back to the event it came from")
    func events() throws {
        let file = URL(fileURLWithPath: "/music/a.wav")
        let events: [DownloadEvent] = [
            .progress(trackID: 7, received: 10, expected: 20), .stateChanged(trackID: 7, state: .paused),
            .completed(trackID: 7, file: file), .failed(trackID: 7, reason: "gone"), .removed(trackID: 7),
        ]
        let states: [DownloadState] = [.downloading, .paused, .downloaded, .failed, .notDownloaded]
        #expect(events.map { WireEvent($0).state } == states)
        for event in events {
            let object = try #require(
                try JSONSerialization.jsonObject(with: WireEncoding.data(WireEvent(event))) as? [String: Any])
            #expect(object["v"] as? Int == 1 && object["id"] as? Int == 7 && object["state"] is String)
            #expect(try JSONDecoder().decode(WireEvent.self, from: WireEncoding.data(WireEvent(event))).downloadEvent == event)
        }
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
        let text = ListingText.render(Listing(downloads: [failed], library: [kept]), libraryFolder: folder)
        #expect(
            text == """
                Downloads
                  failed      50.0% of 1.0 MB  Paper Boats — The Paper Lanterns [7] — gone
                Library (/music)
                  The Paper Lanterns - Paper Boats [7].wav  1.3 MB

                """)
    }
}
