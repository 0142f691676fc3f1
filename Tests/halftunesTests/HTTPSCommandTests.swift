import DemoCatalog
import Foundation
import TestSupport
import Testing

/// The command line against a catalog served over HTTPS (HTTP/2 offered) with a certificate a
/// test authority signed: `--cacert` and `HALFTUNES_CA_BUNDLE` trust it; without them, or with
/// a certificate that is wrong, one clear line and nothing in the library.
@Suite("halftunes over HTTPS", .timeLimit(.minutes(2)))
struct HTTPSCommandTests {
    @Test(
        "--cacert: search, then download byte-exact (catalog, previews and covers over HTTPS); a kill mid-download resumes with If-Range"
    )
    func trusted() async throws {
        let authority = try TestAuthority()
        try await withHTTPSDemoCatalog(tls: try authority.serverTLS()) { catalog, url in
            try await withTemporaryDirectory { folder in
                let home = folder.appendingPathComponent("home")
                let ca = try authority.writePEM(to: folder.appendingPathComponent("ca.pem")).path
                let binary = try BuiltProducts.halftunes
                let environment = ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": url.absoluteString]
                let search = try await ChildProcess.run(binary, ["search", "love", "--cacert", ca], environment: environment)
                #expect(search.status == 0, "\(search.stderr)")
                #expect(search.stdout.contains("Love in the Harbour"))
                // The environment variable does what the flag does.
                var bundled = environment
                bundled["HALFTUNES_CA_BUNDLE"] = ca
                let download = try await ChildProcess.run(binary, ["download", "1001", "1002"], environment: bundled)
                #expect(download.status == 0, "\(download.stderr)")
                for id in [1001, 1002] {
                    let file = try #require(filesIn(home.appendingPathComponent("library")).first { $0.contains("[\(id)]") })
                    let data = try Data(contentsOf: home.appendingPathComponent("library/\(file)"))
                    #expect(WAVAudio.audioHash(data) == WAVAudio.audioHash(await catalog.preview(for: id)!.data))
                }
                #expect(catalog.artworkRequests > 0, "the covers came over HTTPS too")

                catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: 1005)
                // Killed mid-download whatever the machine's speed: the body waits at 500 KB.
                catalog.hold(1005, atByte: 500_000)
                let first = try ChildProcess(binary, ["download", "1005", "--json"], environment: bundled)
                #expect(await first.waitForLine { receivedBytes($0, atLeast: 300_000) } != nil)
                _ = await crashOwners(first, home: home)
                catalog.setFaults(PreviewFaults(), for: 1005)
                catalog.release(1005)
                let second = try await ChildProcess.run(binary, ["download", "1005"], environment: bundled)
                #expect(second.status == 0, "\(second.stderr)")
                let requests = catalog.previewRequests.filter { $0.trackId == 1005 }
                #expect(requests.count == 2 && requests.last?.status == 206 && requests.last?.ifRange != nil, "\(requests)")
            }
        }
    }

    @Test(
        "a certificate not trusted, expired or for another name: one line on stderr that says which, exit 5, nothing in the library",
        arguments: ["untrusted", "expired", "other name"])
    func refused(_ kind: String) async throws {
        let authority = try TestAuthority()
        let yesterday = Date() - 86400
        let tls =
            switch kind {
            case "untrusted": try authority.serverTLS()
            case "expired": try authority.serverTLS(validFrom: yesterday - 86400, validUntil: yesterday)
            default: try authority.serverTLS(names: ["other.example"])
            }
        try await withHTTPSDemoCatalog(tls: tls) { catalog, url in
            try await withTemporaryDirectory { folder in
                let home = folder.appendingPathComponent("home")
                let ca = try authority.writePEM(to: folder.appendingPathComponent("ca.pem")).path
                let trust = kind == "untrusted" ? [] : ["--cacert", ca]
                let server = "localhost:\(url.port!)"
                let says =
                    switch kind {
                    case "untrusted": "the certificate of \(server) is not trusted (self-signed or unknown authority)"
                    case "expired": "the certificate of \(server) expired on "
                    default: "the certificate of \(server) is for other.example, not localhost"
                    }
                for command in [["search", "love"], ["download", "1001"]] {
                    let result = try await ChildProcess.run(
                        try BuiltProducts.halftunes, command + trust,
                        environment: ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": url.absoluteString])
                    #expect(result.status == 5, "\(command): \(result.stderr)")
                    #expect(result.stdout.isEmpty)
                    #expect(result.stderr.hasPrefix("halftunes: " + says), "\(command): \(result.stderr)")
                    #expect(result.stderr.split(separator: "\n").count == 1 && !result.stderr.contains(".build"))
                }
                #expect(filesIn(home.appendingPathComponent("library")).isEmpty)
                #expect(catalog.previewRequests.isEmpty)
            }
        }
    }

    @Test("--cacert with a file that is not there or holds no certificate: one line, exit 2")
    func badBundle() async throws {
        try await withTemporaryDirectory { folder in
            let junk = folder.appendingPathComponent("junk.pem")
            try Data("not a certificate\n".utf8).write(to: junk)
            for (file, says) in [
                (folder.path + "/missing.pem", "cannot read the certificate file"), (junk.path, "holds no PEM certificate"),
            ] {
                let result = try await runHalftunes(
                    ["search", "love", "--cacert", file], home: folder, catalog: URL(string: "http://127.0.0.1:9")!)
                #expect(result.status == 2)
                #expect(result.stderr.hasPrefix("halftunes: --cacert: ") && result.stderr.contains(says), "\(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1)
            }
        }
    }

    @Test(
        "a server that presents an untrusted certificate, then stalls the handshake of the second look: the search ends, saying why"
    )
    func stalledSecondHandshake() async throws {
        let authority = try TestAuthority()
        try await withHTTPSDemoCatalog(tls: try authority.serverTLS()) { _, url in
            let relay = try StallingRelay(upstream: url.port!)
            defer { relay.stop() }
            try await withTemporaryDirectory { home in
                let catalog = try #require(URL(string: "https://localhost:\(relay.port)"))
                let search = try ChildProcess(
                    try BuiltProducts.halftunes, ["search", "love"],
                    environment: halftunesEnvironment(home: home, catalog: catalog))
                // Bounded: a search that has not ended in 30 s is what this test is about.
                let ended = try await withThrowingTaskGroup(of: ChildProcess.Result?.self) { group in
                    group.addTask { await search.wait() }
                    group.addTask {
                        try await Task.sleep(for: .seconds(30))
                        return nil
                    }
                    defer { group.cancelAll() }
                    return try await group.next() ?? nil
                }
                guard let ended else {
                    search.signal(SIGKILL)
                    Issue.record("the search had not ended after 30 s; connections accepted: \(relay.accepted)")
                    return
                }
                #expect(ended.status == 5, "\(ended.stderr)")
                #expect(
                    ended.stderr.contains(
                        "the certificate of localhost:\(relay.port) is not trusted (it could not be fetched again to tell why)\n"),
                    "\(ended.stderr)")
                #expect(relay.accepted >= 2, "the certificate was looked at again")
            }
        }
    }

    @Test(
        "a TLS failure is for good: search and download make one attempt and one look at the certificate, two connections, no retry",
        arguments: [["search", "love"], ["download", "1001"]])
    func oneAttempt(_ command: [String]) async throws {
        let authority = try TestAuthority()
        try await withHTTPSDemoCatalog(tls: try authority.serverTLS()) { _, url in
            let relay = try StallingRelay(upstream: url.port!, relaying: .max)
            defer { relay.stop() }
            try await withTemporaryDirectory { home in
                let catalog = try #require(URL(string: "https://localhost:\(relay.port)"))
                let result = try await runHalftunes(command, home: home, catalog: catalog)
                #expect(result.status == 5, "\(result.stderr)")
                #expect(result.stderr.contains("is not trusted"), "\(result.stderr)")
                // Retried, the failure would take a connection for each try (the default retries
                // back off for some 15 s, inside this suite's limit).
                #expect(relay.accepted == 2, "connections: \(relay.accepted)")
            }
        }
    }

    @Test(
        "through a proxy, an untrusted certificate, or one for another name, is told without a second, direct connection to the server",
        arguments: ["untrusted", "other name"])
    func noDirectLookThroughProxy(_ kind: String) async throws {
        let authority = try TestAuthority()
        let tls = try kind == "untrusted" ? authority.serverTLS() : authority.serverTLS(names: ["other.example"])
        try await withHTTPSDemoCatalog(tls: tls) { _, url in
            let relay = try StallingRelay(upstream: url.port!)
            defer { relay.stop() }
            let proxy = try TestProxy()
            defer { proxy.stop() }
            try await withTemporaryDirectory { folder in
                let home = folder.appendingPathComponent("home")
                var arguments = ["search", "love", "--proxy", proxy.url]
                if kind != "untrusted" {
                    arguments += ["--cacert", try authority.writePEM(to: folder.appendingPathComponent("ca.pem")).path]
                }
                let catalog = try #require(URL(string: "https://localhost:\(relay.port)"))
                let search = try await runHalftunes(arguments, home: home, catalog: catalog)
                #expect(search.status == 5, "\(search.stderr)")
                // Not looked at again, the certificate is not known: nothing is said of its authority or names.
                let said =
                    kind == "untrusted"
                    ? "the certificate of localhost:\(relay.port) is not trusted (it could not be fetched again to tell why)\n"
                    : "halftunes: the certificate of localhost:\(relay.port) is not for localhost\n"
                #expect(search.stderr.contains(said), "\(search.stderr)")
                #expect(proxy.log.all == ["CONNECT localhost:\(relay.port)"], "\(proxy.log.all)")
                #expect(relay.accepted == 1, "only the proxy's connection reached the server")
            }
        }
    }
}
