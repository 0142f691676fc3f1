import AsyncHTTPClient
import DemoCatalog
import Foundation
import HTTPRanges
import HalfTunesKit
import NIOHTTP1
import Synchronization
import TestSupport
import Testing

@testable import HalfTunesWeb

/// `/library/:id` of a track still downloading: what is on disk at once, the rest as it arrives.
@Suite("Playing while downloading", .timeLimit(.minutes(1)))
struct PlayWhileDownloadingTests {
    /// Starts a throttled download of `id` and waits (on the API) until some, not all, of it is on disk.
    private func startSlowDownload(_ id: Int, _ url: URL, _ web: WebApp, _ catalog: DemoCatalog, bytesPerSecond: Int)
        async throws -> Int
    {
        catalog.setFaults(PreviewFaults(bytesPerSecond: bytesPerSecond))
        #expect(try await request(url, "/library/\(id)").status == 404)
        #expect(try await request(url, "/api/downloads/\(id)", method: .POST, headers: allowed(url, web)).status == 200)
        while true {
            let listing = try await request(url, "/api/downloads").json
            let item = (listing?["downloads"] as? [[String: Any]])?.first { $0["id"] as? Int == id }
            let received = item?["receivedBytes"] as? Int ?? 0
            if received > 0 { return received }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test("the whole body is the server's bytes; a range not yet downloaded is waited for, then sent")
    func streams() async throws {
        try await withWebApp { url, web, catalog, _ in
            let preview = try #require(await catalog.preview(for: 1001)).data
            let received = try await startSlowDownload(1001, url, web, catalog, bytesPerSecond: 500_000)
            #expect(received < 1_200_000, "the range asked for below must not be on disk yet")
            async let whole = request(url, "/library/1001")
            async let tail = request(url, "/library/1001", headers: [("Range", "bytes=1200000-1200099")])
            let (body, range) = try await (whole, tail)
            #expect(body.status == 200)
            #expect(sameBytes(body.body, preview), "the bytes as they arrived are the server's, in order")
            #expect(range.status == 206)
            #expect(sameBytes(range.body, preview[1_200_000..<1_200_100]))
            // Once in the library, the track is served from there: tagged, with the same audio.
            while (try await request(url, "/api/downloads").json?["library"] as? [Any])?.isEmpty != false {
                try await Task.sleep(for: .milliseconds(20))
            }
            let library = try await request(url, "/library/1001")
            #expect(WAVAudio.audioHash(library.body) == WAVAudio.audioHash(preview))
        }
    }

    @Test("a range asked before the download's length is known waits for it: a 206 of the file, never the whole")
    func rangeBeforeTheLength() async throws {
        try await withWebApp { url, web, catalog, home in
            catalog.setFaults(PreviewFaults(sendsNoLength: true), for: 1003)
            catalog.hold(1003, atByte: 200_000)
            defer { catalog.release(1003) }
            #expect(try await request(url, "/api/downloads/1003", method: .POST, headers: allowed(url, web)).status == 200)
            #expect(await eventually(within: .seconds(20)) { catalog.bytesSent(for: 1003) == 200_000 })
            // Sent is not yet received: the bytes are on this side once the partial file holds some.
            let library = home.appendingPathComponent("library")
            #expect(
                await eventually(within: .seconds(20)) {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: library.path)) ?? []
                    return names.contains { name in
                        name.contains("[1003]") && name.hasSuffix(".part")
                            && (try? library.appendingPathComponent(name).resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0)
                                ?? 0 > 0
                    }
                })
            let listing = try await request(url, "/api/downloads").json
            let item = (listing?["downloads"] as? [[String: Any]])?.first { $0["id"] as? Int == 1003 }
            #expect(item?["expectedBytes"] == nil || item?["expectedBytes"] is NSNull, "a chunked body has no length yet")
            let answered = Mutex(false)
            let tail = Task {
                var ranged = HTTPClientRequest(url: url.absoluteString + "/library/1003")
                ranged.headers.add(name: "Range", value: "bytes=-100")
                let response = try await HTTPClient.shared.execute(ranged, timeout: .seconds(30))
                answered.withLock { $0 = true }
                let body = Data(buffer: try await response.body.collect(upTo: 4 << 20))
                return (response.status.code, response.headers.first(name: "Content-Range"), body)
            }
            // Answered now, it could only be the whole (200): nothing may come while the length is unknown.
            try await Task.sleep(for: .milliseconds(500))
            #expect(answered.withLock { $0 } == false, "answered before the length was known")
            catalog.release(1003)
            let (status, contentRange, body) = try await tail.value
            let file = try await request(url, "/library/1003").body
            #expect(status == 206)
            #expect(contentRange == "bytes \(file.count - 100)-\(file.count - 1)/\(file.count)")
            #expect(sameBytes(body, file.suffix(100)))
        }
    }

    @Test("cancelling the download ends the stream instead of leaving the player hanging")
    func cancelEnds() async throws {
        try await withWebApp { url, web, catalog, _ in
            let preview = try #require(await catalog.preview(for: 1002)).data
            _ = try await startSlowDownload(1002, url, web, catalog, bytesPerSecond: 100_000)
            let listening = Task { try await request(url, "/library/1002") }
            try await Task.sleep(for: .milliseconds(300))  // let the stream start (either order must end)
            #expect(try await request(url, "/api/downloads/1002", method: .DELETE, headers: allowed(url, web)).status == 204)
            let outcome = await listening.result
            if case .success(let answer) = outcome {
                #expect(answer.body.count < preview.count, "a cancelled download cannot have sent all its bytes")
            }
            #expect(try await request(url, "/library/1002").status == 404)
        }
    }

    @Test(
        "byte ranges",
        arguments: [
            ("bytes=0-99", RangeDecision.partial(0...99)), ("bytes=100-", .partial(100...999)),
            ("bytes=-10", .partial(990...999)), ("bytes=990-5000", .partial(990...999)), ("bytes=1000-", .unsatisfiable),
            ("bytes=5-1", .full), ("bytes=0-1,5-6", .full), ("items=0-5", .full), ("bytes=x-", .full),
        ] as [(String, RangeDecision)])
    func ranges(header: String, expected: RangeDecision) {
        #expect(RangeDecision.decide(range: header, length: 1000) == expected)
    }
}
