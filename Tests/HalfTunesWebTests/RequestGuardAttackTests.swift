import DemoCatalog
import Foundation
import HalfTunesKit
import TestSupport
import Testing

@testable import HalfTunesWeb

/// The page's promises against cross-site requests, tested at the HTTP edge with raw requests as
/// an attacker sends them: a state-changing request needs this process's token, exactly, and an
/// `Origin` (or `Referer`) of this very server. Each refusal is checked to have changed nothing,
/// and each suite has a control request that is let through, so the tests can fail.
@Suite("The request guard against forged requests (raw HTTP)", .timeLimit(.minutes(2)))
struct RequestGuardAttackTests {
    /// Sends one raw HTTP/1.1 request and returns its status code.
    private func send(_ url: URL, _ method: String, _ path: String, headers: [(String, String)]) async throws -> Int {
        let connection = try RawConnection(port: url.port!)
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(url.port!)\r\nContent-Length: 0\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        try connection.send(text + "\r\n")
        let (data, _) = await connection.readToEnd()
        let statusLine = String(decoding: data.prefix(while: { $0 != 13 }), as: UTF8.self)
        return Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    /// What a forged request must not have changed: no download, no preview fetched.
    private func expectNothingChanged(_ url: URL, _ catalog: DemoCatalog, _ what: String) async throws {
        #expect(catalog.previewRequests.isEmpty, "\(what): a preview was fetched")
        let listing = try await request(url, "/api/downloads")
        #expect((listing.json?["downloads"] as? [Any])?.isEmpty == true, "\(what): a download was started")
    }

    /// Tokens that are not this process's: of its length but another value, one byte off at its
    /// start, middle and end, changed in case, cut by one, one byte longer. (Spaces around a
    /// header value are not part of it in HTTP, so a padded token is the token.)
    static func forgeries(of token: String) -> [String] {
        var forgeries = [String(repeating: "0", count: token.count), String(token.reversed())]
        let bytes = Array(token.utf8)
        for index in [0, bytes.count / 2, bytes.count - 1] {
            var changed = bytes
            changed[index] = changed[index] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
            forgeries.append(String(decoding: changed, as: UTF8.self))
        }
        forgeries += [token.uppercased(), String(token.dropLast()), token + "0"]
        return forgeries.filter { $0 != token }
    }

    @Test("a wrong token of the right length, one byte off, another case, cut or longer: refused, nothing changed")
    func forgedTokens() async throws {
        try await withWebApp { url, web, catalog, _ in
            let origin = ("Origin", "http://127.0.0.1:\(url.port!)")
            let forgeries = Self.forgeries(of: web.token)
            #expect(forgeries.count >= 8)
            for forged in forgeries {
                for (method, path) in [("POST", "/api/downloads/1001"), ("DELETE", "/api/library/1001")] {
                    let status = try await send(url, method, path, headers: [origin, ("X-HalfTunes-Token", forged)])
                    #expect(status == 403, "\(method) \(path) with token \(forged.debugDescription): \(status)")
                }
            }
            try await expectNothingChanged(url, catalog, "forged tokens")
            // The control: the real token, from the same origin, is let through.
            let status = try await send(url, "POST", "/api/downloads/1001", headers: [origin, ("X-HalfTunes-Token", web.token)])
            #expect((200..<300).contains(status), "the real token: \(status)")
        }
    }

    @Test("the token of another HalfTunes process is refused")
    func anotherProcessToken() async throws {
        try await withWebApp { url, web, catalog, _ in
            try await withWebApp { _, other, _, _ in
                #expect(other.token != web.token, "two processes drew the same token")
                let status = try await send(
                    url, "POST", "/api/downloads/1001",
                    headers: [("Origin", "http://127.0.0.1:\(url.port!)"), ("X-HalfTunes-Token", other.token)])
                #expect(status == 403)
            }
            try await expectNothingChanged(url, catalog, "another process's token")
        }
    }

    @Test("a state change with the token but no Origin and no Referer, or a foreign or opaque one: refused")
    func missingOrForeignOrigin() async throws {
        try await withWebApp { url, web, catalog, _ in
            let token = ("X-HalfTunes-Token", web.token)
            let port = url.port!
            let cases: [(String, [(String, String)])] = [
                ("neither Origin nor Referer", [token]),
                ("Origin: null (a sandboxed frame, a file)", [("Origin", "null"), token]),
                ("https instead of http", [("Origin", "https://127.0.0.1:\(port)"), token]),
                ("another port", [("Origin", "http://127.0.0.1:\(port == 1 ? 2 : port - 1)"), token]),
                ("a host that only starts like this one", [("Origin", "http://127.0.0.1:\(port).evil.example"), token]),
                ("a Referer from another site", [("Referer", "http://evil.example/127.0.0.1:\(port)/"), token]),
                ("an empty Origin", [("Origin", ""), token]),
            ]
            for (what, headers) in cases {
                for (method, path) in [("POST", "/api/downloads/1001"), ("DELETE", "/api/downloads/1001")] {
                    let status = try await send(url, method, path, headers: headers)
                    #expect(status == 403, "\(what), \(method): \(status)")
                }
            }
            try await expectNothingChanged(url, catalog, "missing or foreign origins")
            // The control: this server's own Referer is enough when Origin is absent.
            let status = try await send(
                url, "POST", "/api/downloads/1001", headers: [("Referer", "http://127.0.0.1:\(port)/index.html"), token])
            #expect((200..<300).contains(status), "this server's Referer: \(status)")
        }
    }
}
