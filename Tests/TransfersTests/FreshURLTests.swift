import DemoCatalog
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import TransferEngine

/// A URL that goes stale mid-download (a CDN's signed URL expired: 404 from now on) and the
/// session's fresh-URL lookup: asked once, the transfer goes on from the new URL with its bytes.
@Suite("Fresh URLs for stale ones", .timeLimit(.minutes(1)))
struct FreshURLTests {
    /// What the lookup was asked, and what it answers.
    final class Lookup: Sendable {
        let asked = Mutex<[(URL, Int)]>([])
        let answer: URL?
        init(answer: URL?) { self.answer = answer }
        func callAsFunction(_ stale: URL, _ status: Int) -> URL? {
            asked.withLock { $0.append((stale, status)) }
            return answer
        }
    }

    /// Downloads 1005 slowly, pauses it past 200 kB, makes its URL stale, and resumes it with
    /// `lookup` answering; returns the transfer's end.
    private func staleMidway(
        _ catalog: DemoCatalog, _ base: URL, _ session: TransferSession, _ folder: URL, lookup: Lookup,
        changeContent: Bool = false
    ) async throws -> (TransferID, TransferSnapshot) {
        await session.setFreshURLLookup { _, stale, status in lookup(stale, status) }
        catalog.setFaults(PreviewFaults(bytesPerSecond: 400_000), for: 1005)
        let events = EventRecorder(session.events())
        let id = try await session.start(url: previewURL(base, 1005), destination: folder.appendingPathComponent("1005.wav"))
        await events.received(id, atLeast: 200_000)
        _ = try await session.pause(id)
        catalog.expirePreviewURL(of: 1005)
        if changeContent { catalog.changeContent(of: 1005) }
        catalog.setFaults(PreviewFaults(), for: 1005)
        try await session.resume(id)
        return (id, try await session.wait(for: id))
    }

    @Test("the lookup is asked once with the stale URL and 404; the rest comes from the fresh URL, validated")
    func goesOn() async throws {
        try await withDemoCatalog { catalog, base in
            try await withSession { session, folder in
                let fresh = URL(string: previewURL(base, 1005).absoluteString + "?g=1")!
                let lookup = Lookup(answer: fresh)
                let (id, end) = try await staleMidway(catalog, base, session, folder, lookup: lookup)
                let preview = try #require(await catalog.preview(for: 1005))
                #expect(end.state == .completed)
                #expect(try sameBytes(Data(contentsOf: folder.appendingPathComponent("1005.wav")), preview.data))
                let asked = lookup.asked.withLock { $0 }
                #expect(asked.map(\.0) == [previewURL(base, 1005)] && asked.map(\.1) == [404], "\(asked)")
                let requests = catalog.previewRequests.filter { $0.trackId == 1005 }
                #expect(requests.map(\.status) == [200, 404, 206], "\(requests)")
                #expect(requests.last?.ifRange == preview.etag, "\(requests)")
                #expect(catalog.bytesSent(for: 1005) < preview.data.count + 50_000, "only the rest fetched again")
                #expect(await session.transfer(id)?.url == fresh, "the fresh URL is the transfer's from now on")
            }
        }
    }

    @Test("a fresh URL to a changed resource: If-Range fails, the whole new version is downloaded")
    func changedResource() async throws {
        try await withDemoCatalog { catalog, base in
            try await withSession { session, folder in
                let lookup = Lookup(answer: URL(string: previewURL(base, 1005).absoluteString + "?g=1")!)
                let (_, end) = try await staleMidway(catalog, base, session, folder, lookup: lookup, changeContent: true)
                #expect(end.state == .completed)
                let preview = try #require(await catalog.preview(for: 1005))
                #expect(try Data(contentsOf: folder.appendingPathComponent("1005.wav")) == preview.data)
                #expect(catalog.previewRequests.filter { $0.trackId == 1005 }.map(\.status) == [200, 404, 200])
            }
        }
    }

    @Test("no fresh URL: the transfer fails with the status, the lookup asked once")
    func noFreshURL() async throws {
        try await withDemoCatalog { catalog, base in
            try await withSession { session, folder in
                let lookup = Lookup(answer: nil)
                let (_, end) = try await staleMidway(catalog, base, session, folder, lookup: lookup)
                #expect(end.state == .failed && end.failure?.code == .httpStatus, "\(end)")
                #expect(end.failure?.message.contains("HTTP 404") == true, "\(end)")
                #expect(lookup.asked.withLock { $0.count } == 1)
                #expect(catalog.previewRequests.filter { $0.trackId == 1005 }.map(\.status) == [200, 404])
            }
        }
    }
}
