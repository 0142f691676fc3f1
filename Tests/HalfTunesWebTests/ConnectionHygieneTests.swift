import Foundation
import ITunesSearch
import TestSupport
import Testing

@testable import HalfTunesKit
@testable import HalfTunesWeb

/// What misbehaving clients meet, over a real socket: HTTP/1.0, oversized headers, too many
/// connections, idle connections, event streams nobody reads.
@Suite("Connection hygiene", .serialized, .timeLimit(.minutes(1)))
struct ConnectionHygieneTests {
    /// A running web app with `limits`, over an empty home (no catalog is called).
    private func withWebApp(limits: ConnectionLimits = .init(), _ body: (Int, WebApp) async throws -> Void) async throws {
        try await withTemporaryDirectory { home in
            let service = try await DownloadService.open(home: HalfTunesHome(root: home), logger: quietLogger("d"))
            let catalog = try ITunesCatalog(
                configuration: CatalogConfiguration(baseURL: URL(string: "http://127.0.0.1:9")!, callsPerMinute: nil),
                logger: quietLogger("c"))
            let web = try WebApp(service: service, catalog: catalog, limits: limits, logger: silentLogger("web"))
            try await withRunningServer({ onReady in web.application(port: 0, onReady: onReady) }) { url in
                try await body(url.port!, web)
            }
            await service.close()
        }
    }

    private func head(_ data: Data) -> String {
        String(decoding: data, as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
    }

    @Test("an HTTP/1.0 request gets an HTTP/1.0 answer with its body, and the connection closed")
    func http10Closes() async throws {
        try await withWebApp { port, _ in
            let connection = try RawConnection(port: port)
            try connection.send("GET /api/downloads HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            let (data, end) = await connection.readToEnd()
            #expect(end == .closed)
            #expect(head(data) == "HTTP/1.0 200 OK")
            let text = String(decoding: data, as: UTF8.self).lowercased()
            #expect(text.contains("connection: close") && !text.contains("transfer-encoding"))
            #expect(text.hasSuffix(#""library":[],"librarybytes":0,"librarycount":0,"v":1}"#))
        }
    }

    @Test("an HTTP/1.0 request that asks for keep-alive gets it, and a second request on the same connection")
    func http10KeepAlive() async throws {
        try await withWebApp { port, _ in
            let connection = try RawConnection(port: port, timeout: .seconds(2))
            for _ in 1...2 {
                try connection.send("GET /api/downloads HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nConnection: keep-alive\r\n\r\n")
                let (data, end) = await connection.read(until: #""v":1}"#)
                #expect(end == nil)
                #expect(head(data) == "HTTP/1.0 200 OK")
                #expect(String(decoding: data, as: UTF8.self).lowercased().contains("connection: keep-alive"))
            }
        }
    }

    @Test("headers past the limit get 431 and a closed connection, not a generic 400")
    func headersTooLarge() async throws {
        try await withWebApp(limits: .init(maximumHeaderBytes: 4096)) { port, _ in
            let connection = try RawConnection(port: port)
            try connection.send(
                "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Padding: \(String(repeating: "a", count: 8192))\r\n\r\n")
            let (data, end) = await connection.readToEnd()
            #expect(head(data) == "HTTP/1.1 431 Request Header Fields Too Large")
            #expect(end == .closed)
        }
    }

    @Test("past the connection cap, a request gets 503 with Retry-After and a closed connection; below it, answers")
    func connectionCap() async throws {
        try await withWebApp(limits: .init(maximumConnections: 2)) { port, web in
            // Each held connection is answered before the third opens: the server counts a
            // connection on the event loop that serves it, so two connections opened back to back
            // may be counted in either order; an answer proves this one was counted.
            var held: [RawConnection] = []
            for _ in 1...2 {
                let connection = try RawConnection(port: port)
                try connection.send("GET /api/downloads HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
                #expect(head(await connection.read(until: #""v":1}"#).data) == "HTTP/1.1 200 OK")
                held.append(connection)
            }
            let third = try RawConnection(port: port)
            try third.send("GET /api/downloads HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            let (data, end) = await third.readToEnd()
            #expect(head(data) == "HTTP/1.1 503 Service Unavailable")
            #expect(String(decoding: data, as: UTF8.self).lowercased().contains("retry-after: 1"))
            #expect(end == .closed)
            #expect(held.count == 2)
        }
    }

    @Test("a kept-alive connection with no request is closed after the idle timeout")
    func idleTimeout() async throws {
        try await withWebApp(limits: .init(idleTimeout: .milliseconds(300))) { port, _ in
            let connection = try RawConnection(port: port)
            try connection.send("GET /api/downloads HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            let (data, end) = await connection.readToEnd()
            #expect(head(data) == "HTTP/1.1 200 OK")
            #expect(end == .closed)
        }
    }

    @Test("a client that sends its headers a byte at a time is closed at the idle timeout: bytes are not activity")
    func slowHeaders() async throws {
        try await withWebApp(limits: .init(idleTimeout: .seconds(1))) { port, _ in
            let connection = try RawConnection(port: port, timeout: .seconds(20))
            // About 200 bytes at one per 50 ms: 10 s to send, each byte well inside the idle timeout.
            let request =
                "GET /api/downloads HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Slow: " + String(repeating: "a", count: 150)
            var sent = 0
            for byte in request.utf8 {
                guard (try? connection.send(String(UnicodeScalar(byte)))) != nil else { break }
                sent += 1
                try await Task.sleep(for: .milliseconds(50))
            }
            let (data, end) = await connection.readToEnd()
            #expect(end == .closed)
            #expect(data.isEmpty, "no answer to headers that never ended")
            #expect(sent < request.utf8.count, "the server kept reading all \(sent) bytes")
        }
    }

    @Test("a kept-alive connection's next request must arrive whole within the idle timeout of the last answer")
    func slowSecondRequest() async throws {
        try await withWebApp(limits: .init(idleTimeout: .seconds(1))) { port, _ in
            let connection = try RawConnection(port: port, timeout: .seconds(20))
            try connection.send("GET /api/downloads HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            #expect(await connection.read(until: "\"v\":1}").end == nil)
            var sent = 0
            for byte in "GET /api/downloads HTTP/1.1\r\nX-Slow: \(String(repeating: "a", count: 150))".utf8 {
                guard (try? connection.send(String(UnicodeScalar(byte)))) != nil else { break }
                sent += 1
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(await connection.readToEnd().end == .closed)
            #expect(sent < 150, "the server kept reading all \(sent) bytes")
        }
    }

    @Test("a silent event stream gets a comment line every heartbeat; events still come between them")
    func heartbeat() async throws {
        try await withWebApp(limits: .init(eventHeartbeat: .milliseconds(200))) { port, web in
            let connection = try RawConnection(port: port, timeout: .seconds(5))
            try connection.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            #expect(await connection.read(until: ": connected").end == nil)
            // No download, no event: two heartbeats in a row.
            for _ in 1...2 {
                let (data, end) = await connection.read(until: ": keep-alive\n\n")
                #expect(end == nil, "no heartbeat within 5 s")
                #expect(!String(decoding: data, as: UTF8.self).contains("data: "))
            }
            web.service.hub.emit(.stateChanged(trackID: 7, state: .paused))
            let (event, end) = await connection.read(until: #""id":7"#)
            #expect(end == nil)
            #expect(String(decoding: event, as: UTF8.self).contains(#"data: {"event":"state","id":7,"state":"paused""#))
            #expect(await connection.read(until: ": keep-alive\n\n").end == nil)
        }
    }

    /// Emits `count` state changes (none merge: each is about another track) to every listener.
    private func flood(_ web: WebApp, _ count: Int) -> Int {
        var largest = 0
        for id in 1...count {
            web.service.hub.emit(.stateChanged(trackID: id, state: .paused))
            if id % 1000 == 0 { largest = max(largest, web.service.hub.backlogs.max() ?? 0) }
        }
        return largest
    }

    @Test("an event stream that stops reading holds a bounded backlog and is closed after the send timeout")
    func neverReads() async throws {
        try await withWebApp(limits: .init(sendTimeout: .milliseconds(500))) { port, web in
            let connection = try RawConnection(port: port)
            try connection.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            #expect(await connection.read(until: ": connected").end == nil)
            // Events of 1 KB, fed while the server keeps up, until its writes wait on the full
            // socket (some MB); then more than a listener may hold.
            let hub = web.service.hub
            var id = 0
            feeding: while id < 50_000 {
                for _ in 0..<50 {
                    id += 1
                    hub.emit(.failed(trackID: id, reason: String(repeating: "x", count: 1000)))
                }
                let deadline = ContinuousClock.now + .seconds(1)
                while (hub.backlogs.first ?? 0) > 0 {
                    if ContinuousClock.now > deadline { break feeding }
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
            var largest = 0
            for _ in 0..<3000 {
                id += 1
                hub.emit(.failed(trackID: id, reason: "x"))
                largest = max(largest, hub.backlogs.first ?? 0)
            }
            #expect(largest <= 1024, "the largest backlog seen: \(largest)")
            #expect(hub.backlogs.isEmpty, "a listener that fell behind is let go")
            // Still not reading: the server lets go of the connection once a write waited too long.
            let deadline = ContinuousClock.now + .seconds(20)
            while web.connections.current > 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(web.connections.current == 0)
            let (data, end) = await connection.readToEnd()
            #expect(end == .closed)
            let delivered = String(decoding: data, as: UTF8.self).components(separatedBy: "data: ").count - 1
            #expect(delivered < id)
            #expect(!String(decoding: data, as: UTF8.self).contains(#""event":"reload""#), "its write never finished")
        }
    }

    @Test("a tab that falls behind but reads on gets a reload event last, and the stream ends")
    func fallsBehind() async throws {
        try await withWebApp { port, web in
            let connection = try RawConnection(port: port)
            try connection.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
            #expect(await connection.read(until: ": connected").end == nil)
            _ = flood(web, 200_000)
            let (data, end) = await connection.read(until: "\r\n0\r\n\r\n")
            #expect(end == nil)
            let events = String(decoding: data, as: UTF8.self).components(separatedBy: "data: ").dropFirst()
            #expect(events.last?.contains(#""event":"reload""#) == true)
            #expect(web.service.hub.backlogs.isEmpty)
        }
    }
}
