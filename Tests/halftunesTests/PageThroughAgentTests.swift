import AsyncHTTPClient
import DemoCatalog
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The page as users run it: `halftunes serve` with the agent on, the agent serving the page.
@Suite("the page through serve and its agent", .timeLimit(.minutes(2)))
struct PageThroughAgentTests {
    /// A GET's status and body, and how long it took.
    private func get(_ url: URL, _ path: String, headers: [(String, String)] = []) async throws -> (
        status: UInt, body: Data, took: Duration
    ) {
        let began = ContinuousClock.now
        var request = HTTPClientRequest(url: url.absoluteString + path)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = Data(buffer: try await response.body.collect(upTo: 16 << 20))
        return (response.status.code, body, ContinuousClock.now - began)
    }

    @Test("50 tabs' event streams open: the API answers within 2 s, the download finishes, and all 50 streams hear of it")
    func fiftyTabs() async throws {
        try await withDemoCatalog { catalog, catalogURL in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: catalogURL)
                try await setup.stoppingAgent {
                    let (server, url) = try await setup.serve()
                    defer { server.signal(SIGTERM) }
                    let token = try await pageToken(at: url)
                    catalog.setFaults(PreviewFaults(bytesPerSecond: 1_000_000), for: 1001)
                    var streams: [RawConnection] = []
                    for _ in 0..<50 {
                        let stream = try RawConnection(port: url.port!, timeout: .seconds(60))
                        try stream.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(url.port!)\r\n\r\n")
                        streams.append(stream)
                    }
                    for stream in streams {
                        let head = await stream.read(until: "\r\n\r\n")
                        #expect(String(decoding: head.data, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
                    }
                    let heard = Task {
                        await withTaskGroup(of: Bool.self) { group in
                            for stream in streams {
                                group.addTask {
                                    let read = await stream.read(until: #""event":"completed""#)
                                    return read.end == nil && String(decoding: read.data, as: UTF8.self).contains(#""id":1001"#)
                                }
                            }
                            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                        }
                    }
                    let listing = try await get(url, "/api/downloads")
                    #expect(listing.status == 200)
                    #expect(listing.took < .seconds(2), "GET /api/downloads took \(listing.took) beside 50 streams")
                    let began = ContinuousClock.now
                    #expect(try await pageCall(.POST, "/api/downloads/1001", at: url, token: token) == 200)
                    let took = ContinuousClock.now - began
                    #expect(took < .seconds(2), "starting a download took \(took) beside 50 streams")
                    #expect(await heard.value == 50, "not every tab heard the download finish")
                    try await setup.expectByteExact([1001], in: try await setup.library(), catalog: catalog)
                }
            }
        }
    }

    @Test("play while downloading through serve: the partial file's bytes, a range ahead waited for, the rest as it arrives")
    func playWhileDownloading() async throws {
        try await withDemoCatalog { catalog, catalogURL in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: catalogURL)
                try await setup.stoppingAgent {
                    let (server, url) = try await setup.serve()
                    defer { server.signal(SIGTERM) }
                    let preview = try #require(await catalog.preview(for: 1002)).data
                    catalog.setFaults(PreviewFaults(bytesPerSecond: 400_000), for: 1002)
                    #expect(try await get(url, "/library/1002").status == 404)
                    #expect(try await pageCall(.POST, "/api/downloads/1002", at: url, token: try await pageToken(at: url)) == 200)
                    #expect(await eventually(within: .seconds(20)) { catalog.bytesSent(for: 1002) > 50_000 })
                    let end = preview.count - 1
                    async let whole = get(url, "/library/1002")
                    async let tail = get(url, "/library/1002", headers: [("Range", "bytes=\(end - 99)-\(end)")])
                    let (body, range) = try await (whole, tail)
                    #expect(body.status == 200)
                    // sameBytes: a failing #expect of two large Data values takes minutes to describe.
                    #expect(sameBytes(body.body, preview), "the bytes as they arrived are the server's, in order")
                    #expect(range.status == 206, "\(range.body.count) bytes")
                    #expect(sameBytes(range.body, Data(preview[(end - 99)...])))
                }
            }
        }
    }

    @Test("the agent killed under an open page: serve starts a new one on the same port, and the tab's token still works")
    func agentKilledUnderThePage() async throws {
        try await withDemoCatalog { catalog, catalogURL in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: catalogURL)
                try await setup.stoppingAgent {
                    let (server, url) = try await setup.serve()
                    defer { server.signal(SIGTERM) }
                    let token = try await pageToken(at: url)
                    let first = try #require(try await setup.agentPID())
                    kill(first, SIGKILL)
                    let said = await server.waitForLine { $0.contains("started a new HalfTunes agent") ? $0 : nil }
                    #expect(said != nil, "\(server.stdoutSoFar) \(server.stderrSoFar)")
                    #expect(await eventually(within: .seconds(10)) { (try? await get(url, "/api/downloads").status) == 200 })
                    #expect(try await pageCall(.POST, "/api/downloads/1003", at: url, token: token) == 200)
                    let second = try #require(try await setup.agentPID())
                    #expect(second != first)
                    #expect(await eventually(within: .seconds(30)) { (try? await setup.library().keys.contains(1003)) == true })
                    try await setup.expectByteExact([1003], in: try await setup.library(), catalog: catalog)
                }
            }
        }
    }
}
