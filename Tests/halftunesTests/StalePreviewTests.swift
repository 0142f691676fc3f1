import DemoCatalog
import Foundation
import TestSupport
import Testing

/// A preview URL gone stale between runs (a CDN's signed URL expired: 404 now): the track is
/// looked up again by id and the download goes on from the catalog's fresh URL, once, with the
/// bytes it had when that server vouches for them.
@Suite("Stale preview URLs", .timeLimit(.minutes(1)))
struct StalePreviewTests {
    /// Starts downloading `id` slowly, pauses it mid-way and kills the command and its agent, and
    /// makes the URL it journaled stale. Paused, the download waits for the next command (an agent
    /// resumes unfinished downloads as it starts, which would race the command to the stale URL).
    private func interruptedDownload(
        _ id: Int, catalog: DemoCatalog, home: URL, url: URL, staleStatus: Int = 404
    ) async throws {
        catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: id)
        // Mid-download whatever the machine's speed: the body waits at 400 KB until released.
        catalog.hold(id, atByte: 400_000)
        let first = try ChildProcess(
            try BuiltProducts.halftunes, ["download", "\(id)", "--json"],
            environment: halftunesEnvironment(home: home, catalog: url))
        #expect(await first.waitForLine { receivedBytes($0, atLeast: 200_000) } != nil)
        let pause = try await runHalftunes(["pause", "\(id)"], home: home, catalog: url)
        #expect(pause.status == 0, "\(pause.stderr)")
        _ = await crashOwners(first, home: home)
        catalog.release(id)
        catalog.expirePreviewURL(of: id, answering: staleStatus)
    }

    @Test(
        "the next run meets a 404, 403 or 410 for the journaled URL, looks the track up again and fetches only the rest from the new one",
        arguments: [404, 403, 410])
    func refreshed(staleStatus: Int) async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                try await interruptedDownload(1003, catalog: catalog, home: home, url: url, staleStatus: staleStatus)
                catalog.setFaults(PreviewFaults(), for: 1003)
                let again = try await runHalftunes(["download", "1003", "--json"], home: home, catalog: url)
                #expect(again.status == 0, "\(again.stderr)")
                let retry = ndjson(again.stdout).first { $0["event"] as? String == "retrying" }
                #expect((retry?["reason"] as? String)?.contains("looked it up again") == true, "\(again.stdout)")
                let file = try #require(filesIn(home.appendingPathComponent("library")).first { !$0.hasSuffix(".part") })
                let data = try Data(contentsOf: home.appendingPathComponent("library/\(file)"))
                #expect(WAVAudio.audioHash(data) == WAVAudio.audioHash(await catalog.preview(for: 1003)!.data))
                let requests = catalog.previewRequests.filter { $0.trackId == 1003 }
                #expect(requests.map(\.status) == [200, staleStatus, 206], "\(requests)")
                #expect(await catalog.preview(for: 1003)?.etag == requests.last?.ifRange, "\(requests)")
                #expect(catalog.lookupRequests.suffix(1) == [[1003]], "looked up again by id")
                let size = try #require(await catalog.preview(for: 1003)).data.count
                #expect(catalog.bytesSent(for: 1003) < size + 100_000, "the bytes kept were not fetched again")
            }
        }
    }

    @Test("a fresh URL whose file changed meanwhile: the new version is downloaded whole")
    func refreshedChanged() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                try await interruptedDownload(1003, catalog: catalog, home: home, url: url)
                catalog.changeContent(of: 1003)
                catalog.setFaults(PreviewFaults(), for: 1003)
                let again = try await runHalftunes(["download", "1003", "--json"], home: home, catalog: url)
                #expect(again.status == 0, "\(again.stderr)")
                let file = try #require(filesIn(home.appendingPathComponent("library")).first { !$0.hasSuffix(".part") })
                let data = try Data(contentsOf: home.appendingPathComponent("library/\(file)"))
                #expect(WAVAudio.audioHash(data) == WAVAudio.audioHash(await catalog.preview(for: 1003)!.data))
                #expect(catalog.previewRequests.filter { $0.trackId == 1003 }.map(\.status) == [200, 404, 200])
            }
        }
    }

    @Test("when the fresh URL fails too, the reason names both URLs; once only")
    func bothFail() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                try await interruptedDownload(1004, catalog: catalog, home: home, url: url)
                catalog.setFaults(PreviewFaults(failure: (404, Int.max)), for: 1004)
                let again = try await runHalftunes(["download", "1004", "--json"], home: home, catalog: url)
                #expect(again.status == 8)
                let failed = ndjson(again.stdout).first { $0["event"] as? String == "failed" }
                let reason = try #require(failed?["reason"] as? String)
                #expect(reason.contains("\(url.absoluteString)/previews/1004.wav?g=1"), "\(reason)")
                #expect(reason.contains("looked up after \(url.absoluteString)/previews/1004.wav failed"), "\(reason)")
                #expect(catalog.previewRequests.filter { $0.trackId == 1004 }.map(\.status) == [200, 404, 404])
            }
        }
    }
}
