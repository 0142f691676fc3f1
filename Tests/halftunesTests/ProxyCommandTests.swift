import DemoCatalog
import Foundation
import TestSupport
import Testing

/// The command line through a proxy (a small one in the test support that notes each request
/// line): the catalog, previews and covers all cross it, over HTTP and HTTPS (CONNECT).
@Suite("halftunes through a proxy", .timeLimit(.minutes(1)))
struct ProxyCommandTests {
    @Test("--proxy: search and download cross the proxy; the file is byte-exact")
    func explicitProxy() async throws {
        let proxy = try TestProxy()
        defer { proxy.stop() }
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let server = "127.0.0.1:\(url.port!)"
                let search = try await runHalftunes(["search", "love", "--proxy", proxy.url], home: home, catalog: url)
                #expect(search.status == 0, "\(search.stderr)")
                #expect(proxy.log.all.contains { $0.contains(server) }, "\(proxy.log.all)")
                let download = try await runHalftunes(["download", "1002", "--proxy", proxy.url], home: home, catalog: url)
                #expect(download.status == 0, "\(download.stderr)")
                let file = try #require(filesIn(home.appendingPathComponent("library")).first)
                let data = try Data(contentsOf: home.appendingPathComponent("library/\(file)"))
                #expect(WAVAudio.audioHash(data) == WAVAudio.audioHash(await catalog.preview(for: 1002)!.data))
                #expect(proxy.log.count >= 3, "catalog, preview and cover through the proxy: \(proxy.log.all)")
            }
        }
    }

    @Test("--proxy socks5://: search and download (through the agent) cross a SOCKS5 proxy; the file is byte-exact")
    func socks5() async throws {
        let proxy = try TestProxy()
        defer { proxy.stop() }
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let target = "SOCKS5 127.0.0.1:\(url.port!)"
                let search = try await runHalftunes(["search", "love", "--proxy", proxy.socksURL], home: home, catalog: url)
                #expect(search.status == 0, "\(search.stderr)")
                #expect(proxy.log.all.contains(target), "\(proxy.log.all)")
                let before = proxy.log.count
                let download = try await runHalftunes(["download", "1002", "--proxy", proxy.socksURL], home: home, catalog: url)
                #expect(download.status == 0, "\(download.stderr)")
                #expect(proxy.log.all.dropFirst(before).contains(target), "the download's requests: \(proxy.log.all)")
                #expect(proxy.log.all.allSatisfy { $0.hasPrefix("SOCKS5 ") }, "\(proxy.log.all)")
                let file = try #require(filesIn(home.appendingPathComponent("library")).first)
                let data = try Data(contentsOf: home.appendingPathComponent("library/\(file)"))
                #expect(WAVAudio.audioHash(data) == WAVAudio.audioHash(await catalog.preview(for: 1002)!.data))
            }
        }
    }

    @Test("https_proxy from the environment tunnels HTTPS with CONNECT; no_proxy goes direct")
    func environmentProxy() async throws {
        let proxy = try TestProxy()
        defer { proxy.stop() }
        let authority = try TestAuthority()
        try await withHTTPSDemoCatalog(tls: try authority.serverTLS()) { catalog, url in
            try await withTemporaryDirectory { folder in
                let home = folder.appendingPathComponent("home")
                var environment = [
                    "HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": url.absoluteString, "https_proxy": proxy.url,
                    "HALFTUNES_CA_BUNDLE": try authority.writePEM(to: folder.appendingPathComponent("ca.pem")).path,
                ]
                let download = try await ChildProcess.run(
                    try BuiltProducts.halftunes, ["download", "1001"], environment: environment)
                #expect(download.status == 0, "\(download.stderr)")
                #expect(proxy.log.all.contains("CONNECT localhost:\(url.port!)"), "\(proxy.log.all)")
                #expect(catalog.previewRequests.count == 1)
                let crossed = proxy.log.count
                environment["no_proxy"] = "localhost"
                let direct = try await ChildProcess.run(
                    try BuiltProducts.halftunes, ["download", "1002"], environment: environment)
                #expect(direct.status == 0, "\(direct.stderr)")
                #expect(proxy.log.count == crossed, "nothing more through the proxy")
                #expect(catalog.previewRequests.count == 2)
            }
        }
    }

    @Test(
        "the catalog lookup and the preview it found share one connection: one CONNECT, one handshake",
        arguments: ["in the command", "in the agent"])
    func lookupSharesTheConnection(downloading where: String) async throws {
        let proxy = try TestProxy()
        defer { proxy.stop() }
        let authority = try TestAuthority()
        try await withHTTPSDemoCatalog(tls: try authority.serverTLS()) { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                var environment = setup.environment
                environment["HALFTUNES_AGENT"] = `where` == "in the agent" ? "1" : "0"
                environment["https_proxy"] = proxy.url
                environment["HALFTUNES_NO_TAGS"] = "1"
                environment["HALFTUNES_CA_BUNDLE"] = try authority.writePEM(to: folder.appendingPathComponent("ca.pem")).path
                try await setup.stoppingAgent(environment: environment) {
                    let download = try await ChildProcess.run(
                        try BuiltProducts.halftunes, ["download", "1001"], environment: environment)
                    #expect(download.status == 0, "\(download.stderr)")
                    // An agent runs exactly when it was asked for.
                    #expect((try await setup.agentPID(environment: environment) != nil) == (`where` == "in the agent"))
                    #expect(catalog.previewRequests.count == 1)
                    #expect(proxy.log.all == ["CONNECT localhost:\(url.port!)"], "\(proxy.log.all)")
                }
            }
        }
    }

    @Test("a proxy URL that cannot be used: one line naming the setting, exit 2")
    func badProxy() async throws {
        try await withTemporaryDirectory { home in
            let result = try await runHalftunes(
                ["search", "love", "--proxy", "ftp://p.example"], home: home, catalog: URL(string: "http://127.0.0.1:9")!)
            #expect(result.status == 2)
            #expect(result.stderr == "halftunes: --proxy: ftp proxies are not supported (http:// and socks5:// are)\n")
        }
    }

    @Test("a proxy's password: not on the agent's command line nor in its log; the download still crosses the proxy")
    func passwordOutOfSight() async throws {
        let proxy = try TestProxy()
        defer { proxy.stop() }
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                let withPassword = "http://listener:s3cret@127.0.0.1:\(proxy.port)"
                try await setup.stoppingAgent {
                    let download = try await setup.run(["download", "1002", "--proxy", withPassword])
                    #expect(download.status == 0, "\(download.stderr)")
                    // The command's lookup, then the agent's preview and cover: two processes, two tunnels at least.
                    let tunnels = proxy.log.all.filter { $0 == "CONNECT 127.0.0.1:\(url.port!)" }
                    #expect(tunnels.count >= 2, "\(proxy.log.all)")
                    #expect(catalog.previewRequests.count == 1)
                    let pid = try #require(try await setup.agentPID(), "the agent the download started still runs")
                    let commandLine = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))
                    let words = String(decoding: commandLine, as: UTF8.self).split(separator: "\0")
                    #expect(words.contains("agent") && !words.contains { $0.contains("s3cret") }, "\(words)")
                    let log = try String(contentsOf: setup.home.appendingPathComponent("agent.log"), encoding: .utf8)
                    #expect(!log.contains("s3cret"), "\(log)")
                }
            }
        }
    }

    @Test(
        "a proxy setting that cannot be used is told without its password; an https:// proxy is refused, not spoken to in clear",
        arguments: [
            ("http://user:s3cret@", "--proxy: \"http://…@\" is not a proxy URL"),
            ("https://user:s3cret@proxy.example:3128", "--proxy: https:// proxies (TLS to the proxy itself) are not supported"),
        ])
    func passwordNotEchoed(value: String, told: String) async throws {
        try await withTemporaryDirectory { home in
            let result = try await runHalftunes(
                ["search", "love", "--proxy", value], home: home, catalog: URL(string: "http://127.0.0.1:9")!)
            #expect(result.status == 2)
            #expect(result.stderr.contains(told) && !result.stderr.contains("s3cret"), "\(result.stderr)")
        }
    }
}
