import Foundation
import Hummingbird
import Synchronization
import TestSupport
import Testing

/// Where a catalog's answer may send HalfTunes: a preview that began on the public internet
/// stays there, at every redirect hop, after name resolution, and in every numeric spelling of
/// an address. Public names are reached through a proxy that resolves them itself (a test cannot
/// reach a public address), or inside a mount namespace with hosts of its own.
@Suite("where a catalog may send HalfTunes", .timeLimit(.minutes(1)))
struct CatalogReachTests {
    /// A catalog answering every lookup with one track, `id`, whose preview is at `preview`.
    static func catalog(id: Int, preview: String) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/lookup") { _, _ -> Response in
            let track: [String: Any] = [
                "wrapperType": "track", "kind": "song", "trackId": id, "trackName": "Bait", "artistName": "Hostile",
                "collectionName": "Redirects", "previewUrl": preview,
            ]
            let body = try JSONSerialization.data(withJSONObject: ["resultCount": 1, "results": [track]])
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        return router
    }

    /// A listener on this machine that counts what reaches it (the thing a hostile catalog aims at).
    final class Target: Sendable {
        let hits = Mutex(0)
        func router() -> Router<BasicRequestContext> {
            let router = Router()
            router.get("/**") { _, _ -> Response in
                self.hits.withLock { $0 += 1 }
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "rebooting")))
            }
            return router
        }
    }

    @Test("a preview on a public name answered with a 302 to 127.0.0.1: refused at the hop, nothing reaches the listener")
    func redirectToLoopback() async throws {
        let target = Target()
        try await withTestServer(target.router()) { local in
            let redirecting = Router()
            redirecting.get("/a.m4a") { _, _ -> Response in
                Response(status: .found, headers: [.location: "\(local.absoluteString)/admin?reboot=1"])
            }
            try await withTestServer(redirecting) { previews in
                let proxy = try TestProxy(hosts: ["previews.example": "127.0.0.1"])
                defer { proxy.stop() }
                let preview = "http://previews.example:\(previews.port!)/a.m4a"
                try await withTestServer(Self.catalog(id: 4242, preview: preview)) { catalog in
                    try await withTemporaryDirectory { folder in
                        let setup = try AgentSetup(folder: folder, catalog: catalog)
                        try await setup.stoppingAgent {
                            let result = try await setup.run(["download", "4242", "--proxy", proxy.url])
                            #expect(result.status == 8, "\(result.stdout)\n\(result.stderr)")
                            #expect(result.stderr.contains("refused 127.0.0.1: on this machine"), "\(result.stderr)")
                            #expect(proxy.log.all.contains("CONNECT previews.example:\(previews.port!)"), "\(proxy.log.all)")
                            #expect(target.hits.withLock { $0 } == 0, "the redirect's target was requested")
                        }
                    }
                }
            }
        }
    }

    @Test(
        "a public catalog's preview at 127.1, 2130706433, 0x7f000001 or 0: dropped from the answer, never requested",
        arguments: ["127.1", "2130706433", "0x7f000001", "0"])
    func numericSpellings(host: String) async throws {
        let target = Target()
        try await withTestServer(target.router()) { local in
            let proxy = try TestProxy(hosts: ["catalog.example": "127.0.0.1"])
            defer { proxy.stop() }
            let preview = "http://\(host):\(local.port!)/a.m4a"
            try await withTestServer(Self.catalog(id: 4243, preview: preview)) { catalog in
                try await withTemporaryDirectory { folder in
                    let publicCatalog = try #require(URL(string: "http://catalog.example:\(catalog.port!)"))
                    let setup = try AgentSetup(folder: folder, catalog: publicCatalog)
                    try await setup.stoppingAgent {
                        let result = try await setup.run(["download", "4243", "--proxy", proxy.url])
                        #expect(result.status != 0)
                        #expect(result.stderr.contains("has no preview"), "\(result.stderr)")
                        #expect(proxy.log.all.contains { $0.contains("catalog.example") }, "\(proxy.log.all)")
                        #expect(target.hits.withLock { $0 } == 0, "the preview was requested")
                    }
                }
            }
        }
    }

    @Test(
        "a preview on a public name that resolves to 127.0.0.1 (hosts of a mount namespace): refused naming the address",
        .enabled(if: ReadOnlyMount.available, "needs unshare -r -m (user and mount namespaces)"))
    func resolvesToLoopback() async throws {
        let target = Target()
        try await withTestServer(target.router()) { local in
            let preview = "http://evil.example:\(local.port!)/a.m4a"
            try await withTestServer(Self.catalog(id: 4244, preview: preview)) { catalog in
                try await withTemporaryDirectory { folder in
                    let hosts = folder.appendingPathComponent("hosts")
                    try "127.0.0.1 localhost\n127.0.0.1 evil.example\n".write(to: hosts, atomically: true, encoding: .utf8)
                    let script = "mount --bind \"$0\" /etc/hosts && getent hosts evil.example && exec \"$@\""
                    let home = folder.appendingPathComponent("home")
                    let result = try await ChildProcess.run(
                        URL(fileURLWithPath: "/usr/bin/unshare"),
                        ["-r", "-m", "sh", "-c", script, hosts.path, try BuiltProducts.halftunes.path, "download", "4244"],
                        environment: halftunesEnvironment(home: home, catalog: catalog))
                    #expect(
                        result.stdout.hasPrefix("127.0.0.1") && result.stdout.contains("evil.example"),
                        "the namespace resolves the name")
                    #expect(result.status == 8, "\(result.stdout)\n\(result.stderr)")
                    #expect(
                        result.stderr.contains("refused evil.example: it resolves to 127.0.0.1, on this machine"),
                        "\(result.stderr)")
                    #expect(target.hits.withLock { $0 } == 0, "the preview was requested")
                }
            }
        }
    }
}
