import AsyncHTTPClient
import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `halftunes serve` as a process; the other commands act through its API while it runs.
@Suite("halftunes serve", .timeLimit(.minutes(2)))
struct ServeCommandTests {
    private func start(home: URL, catalog: URL, extra: [String: String] = [:]) async throws -> (ChildProcess, URL) {
        let server = try ChildProcess(
            try BuiltProducts.halftunes, ["serve", "--port", "0"],
            environment: ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": catalog.absoluteString].merging(extra) { $1 })
        let url = await server.waitForLine { line -> URL? in
            guard let range = line.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression) else { return nil }
            return URL(string: String(line[range]))
        }
        return (server, try #require(url, "serve did not print its URL"))
    }

    private func halftunes(_ arguments: [String], home: URL, path: String? = nil) async throws -> ChildProcess.Result {
        var environment = ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": "http://127.0.0.1:9"]
        if let path { environment["PATH"] = path }
        return try await ChildProcess.run(try BuiltProducts.halftunes, arguments, environment: environment)
    }

    @Test("while serve owns the session, download, list, pause, resume, cancel and remove go through its API")
    func actsThroughTheServer() async throws {
        try await withDemoCatalog { catalog, catalogURL in
            try await withTemporaryDirectory { home in
                let (server, _) = try await start(home: home, catalog: catalogURL)
                // The CLI's own catalog setting is unreachable: only the server can look tracks up.
                let download = try await halftunes(["download", "1001", "--json"], home: home)
                #expect(download.status == 0, "\(download.stderr)")
                #expect(
                    download.stdout.contains(
                        #"{"event":"completed","file":"\#(home.path)/library/The Paper Lanterns - Love in the Harbour [1001].wav","id":1001,"state":"downloaded","v":1}"#
                    ))

                catalog.setFaults(PreviewFaults(bytesPerSecond: 200_000), for: 1002)
                let watcher = try ChildProcess(
                    try BuiltProducts.halftunes, ["download", "1002", "--json"],
                    environment: ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": "http://127.0.0.1:9"])
                _ = await watcher.waitForLine { $0.contains(#""event":"progress""#) ? true : nil }
                let pause = try await halftunes(["pause", "1002"], home: home)
                #expect(pause.status == 0, "\(pause.stderr)")
                let list = try await halftunes(["list", "--json"], home: home)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
                #expect((object["downloads"] as? [[String: Any]])?.first?["state"] as? String == "paused")
                #expect((object["library"] as? [[String: Any]])?.count == 1)
                watcher.signal(SIGINT)  // stops watching; the download stays with the server
                #expect(await watcher.wait().status == 130)

                let cancel = try await halftunes(["cancel", "1002"], home: home)
                #expect(cancel.status == 0, "\(cancel.stderr)")
                #expect(
                    filesIn(home.appendingPathComponent("library")) == ["The Paper Lanterns - Love in the Harbour [1001].wav"])

                let remove = try await halftunes(["remove", "1001"], home: home)
                #expect(remove.status == 0, "\(remove.stderr)")
                #expect(filesIn(home.appendingPathComponent("library")).isEmpty)

                server.signal(SIGTERM)
                let ended = await server.wait()
                #expect(ended.status == 0 && !ended.signaled)
            }
        }
    }

    @Test("a download paused from elsewhere while download watches it: the watcher says so, waits, and ends done once resumed")
    func pausedElsewhere() async throws {
        try await withDemoCatalog { catalog, catalogURL in
            try await withTemporaryDirectory { home in
                let (server, _) = try await start(home: home, catalog: catalogURL)
                catalog.setFaults(PreviewFaults(bytesPerSecond: 200_000), for: 1002)
                let watcher = try ChildProcess(
                    try BuiltProducts.halftunes, ["download", "1002"],
                    environment: ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": "http://127.0.0.1:9"])
                _ = await watcher.waitForLine { $0.contains("Paper Boats — ") && $0.contains("% of") ? true : nil }
                #expect(try await halftunes(["pause", "1002"], home: home).status == 0)
                #expect(await watcher.waitForLine { $0 == "Paper Boats — Paused" ? true : nil } == true)
                catalog.setFaults(PreviewFaults(), for: 1002)
                #expect(try await halftunes(["resume", "1002"], home: home).status == 0)
                let watched = await watcher.wait()
                #expect(watched.status == 0, "\(watched.stderr)")
                let lines = watched.stdout.split(separator: "\n").map(String.init)
                let resumed = try #require(lines.firstIndex(of: "Paper Boats — Resumed"), "\(lines)")
                #expect(lines[resumed...].contains { $0.hasPrefix("Paper Boats — done → ") }, "\(lines)")
                server.signal(SIGTERM)
                #expect(await server.wait().status == 0)
            }
        }
    }

    @Test("SIGTERM stops serve cleanly mid-download: its agent finishes the download, the next serve lists it")
    func shutdownLeavesTheAgent() async throws {
        try await withDemoCatalog { catalog, catalogURL in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 1_000_000), for: 1003)
            try await withTemporaryDirectory { home in
                let (server, url) = try await start(home: home, catalog: catalogURL)
                let token = try await pageToken(at: url)
                #expect(try await pageCall(.POST, "/api/downloads/1003", at: url, token: token) == 200)
                while catalog.bytesSent(for: 1003) < 100_000 { try await Task.sleep(for: .milliseconds(20)) }
                server.signal(SIGTERM)
                #expect(await server.wait().status == 0)
                let library = home.appendingPathComponent("library")
                let name = "The Paper Lanterns - Tidewater [1003].wav"
                while !filesIn(library).contains(name) { try await Task.sleep(for: .milliseconds(20)) }
                #expect(
                    WAVAudio.audioHash(try Data(contentsOf: library.appendingPathComponent(name)))
                        == WAVAudio.audioHash(await catalog.preview(for: 1003)!.data))
                #expect(catalog.previewRequests.filter { $0.trackId == 1003 }.map(\.status) == [200], "never cut short")
                let (again, againURL) = try await start(home: home, catalog: catalogURL)
                let listed = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: againURL.absoluteString + "/api/downloads"), timeout: .seconds(10))
                #expect(String(buffer: try await listed.body.collect(upTo: 1 << 20)).contains("\"id\":1003"))
                again.signal(SIGTERM)
                #expect(await again.wait().status == 0)
            }
        }
    }

    @Test("HALFTUNES_AGENT=0: SIGTERM stops serve, which hosts the downloads, cleanly mid-download; the next start finishes it")
    func shutdownAndResume() async throws {
        try await withDemoCatalog { catalog, catalogURL in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: 1003)
            try await withTemporaryDirectory { home in
                let inProcess = ["HALFTUNES_AGENT": "0"]
                let (server, url) = try await start(home: home, catalog: catalogURL, extra: inProcess)
                let token = try await pageToken(at: url)
                #expect(try await pageCall(.POST, "/api/downloads/1003", at: url, token: token) == 200)
                while catalog.bytesSent(for: 1003) < 100_000 { try await Task.sleep(for: .milliseconds(20)) }
                server.signal(SIGTERM)
                #expect(await server.wait().status == 0)
                let parts = filesIn(home.appendingPathComponent("library")).filter { $0.hasSuffix(".part") }
                #expect(parts.count == 1)

                catalog.setFaults(PreviewFaults(), for: 1003)
                let (again, _) = try await start(home: home, catalog: catalogURL, extra: inProcess)
                let library = home.appendingPathComponent("library")
                while !filesIn(library).contains("The Paper Lanterns - Tidewater [1003].wav") {
                    try await Task.sleep(for: .milliseconds(20))
                }
                again.signal(SIGTERM)
                #expect(await again.wait().status == 0)
                #expect(
                    WAVAudio.audioHash(
                        try Data(contentsOf: library.appendingPathComponent("The Paper Lanterns - Tidewater [1003].wav")))
                        == WAVAudio.audioHash(await catalog.preview(for: 1003)!.data))
                #expect(catalog.previewRequests.last { $0.trackId == 1003 }?.status == 206)
            }
        }
    }

    @Test("a port in use, an address not this machine's, a host with no address: one line each, its exit status")
    func cannotListen() async throws {
        try await withDemoCatalog { _, catalogURL in
            try await withTemporaryDirectory { home in
                // The DemoCatalog holds its port: serve cannot have it.
                let port = try #require(catalogURL.port)
                let cases: [(host: String, status: Int32, reason: String)] = [
                    (
                        "127.0.0.1", 4,
                        "the port is in use (another halftunes serve?); choose another with --port, or 0 for any free one"
                    ),
                    ("192.0.2.1", 2, "192.0.2.1 is not an address of this machine"),
                    ("nonexistent.invalid", 2, "no address is known for the host nonexistent.invalid"),
                ]
                for (host, status, reason) in cases {
                    let served = try await ChildProcess.run(
                        try BuiltProducts.halftunes, ["serve", "--host", host, "--port", "\(port)"],
                        environment: ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": catalogURL.absoluteString])
                    #expect(served.status == status, "\(host): \(served.stderr)")
                    let lines = served.stderr.split(separator: "\n").filter { !$0.contains("warning: listening on") }
                    #expect(lines == ["halftunes: cannot listen on \(host):\(port): \(reason)"], "\(host)")
                }
                // demo runs a DemoCatalog of its own beside the web app: it stops as quietly.
                // (A home of its own: serve's agent above may still be running for that one.)
                let demo = try await ChildProcess.run(
                    try BuiltProducts.halftunes, ["demo", "--port", "\(port)"],
                    environment: ["HALFTUNES_HOME": home.appendingPathComponent("demo").path])
                #expect(demo.status == 4)
                #expect(demo.stderr == "halftunes: cannot listen on 127.0.0.1:\(port): \(cases[0].reason)\n")
            }
        }
    }

    @Test("a home that is a file, or under one: one line, exit status 2, for serve and for commands that open it")
    func homeIsAFile() async throws {
        try await withTemporaryDirectory { folder in
            let file = folder.appendingPathComponent("not-a-folder")
            try Data("x".utf8).write(to: file)
            for (home, arguments) in [
                (file.path, ["list"]), (file.path + "/halftunes", ["download", "1001"]), (file.path, ["serve", "--port", "0"]),
            ] {
                let result = try await ChildProcess.run(
                    try BuiltProducts.halftunes, arguments,
                    environment: ["HALFTUNES_HOME": home, "HALFTUNES_CATALOG": "http://127.0.0.1:9"])
                #expect(result.status == 2, "\(arguments): \(result.stderr)")
                let what = home == file.path ? "is a file, not a folder" : "cannot be made: \(file.path) is a file, not a folder"
                #expect(
                    result.stderr == "halftunes: the home \(home) \(what); choose another with --home or HALFTUNES_HOME\n",
                    "\(arguments)")
            }
            #expect(try Data(contentsOf: file) == Data("x".utf8), "the file is left as it was")
        }
    }

    @Test("another loopback address is served with its own Host check and no exposure warning")
    func otherLoopbackHost() async throws {
        try await withTemporaryDirectory { home in
            // 127.0.0.2 is loopback (no traffic leaves the machine): not exposed, so no warning.
            // Which hosts do warn is decided by WebServer.exposureWarning, tested without binding them.
            let server = try ChildProcess(
                try BuiltProducts.halftunes, ["serve", "--host", "127.0.0.2", "--port", "0"],
                environment: ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": "http://127.0.0.1:9"])
            let url = await server.waitForLine { $0.contains("http://127.0.0.2:") ? $0 : nil }
            #expect(url != nil)
            server.signal(SIGTERM)
            let ended = await server.wait()
            #expect(ended.status == 0)
            #expect(!ended.stderr.contains("warning"))
        }
    }

    @Test("play uses the first system player found, and says which to install when there is none")
    func play() async throws {
        try await withDemoCatalog { _, catalogURL in
            try await withTemporaryDirectory { home in
                let download = try await ChildProcess.run(
                    try BuiltProducts.halftunes, ["download", "1004"],
                    environment: ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": catalogURL.absoluteString])
                #expect(download.status == 0)
                // A stand-in for mpv that records what it was asked to play.
                let bin = home.appendingPathComponent("bin")
                try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
                let record = home.appendingPathComponent("played.txt")
                let fake = bin.appendingPathComponent("mpv")
                try "#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(record.path)'\n".write(to: fake, atomically: true, encoding: .utf8)
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)

                let played = try await halftunes(["play", "1004"], home: home, path: bin.path)
                #expect(played.status == 0, "\(played.stderr)")
                #expect(played.stdout.contains("Playing Salt & Vinegar — The Paper Lanterns (mpv)"))
                let arguments = try String(contentsOf: record, encoding: .utf8).split(separator: "\n")
                #expect(arguments.last == "\(home.path)/library/The Paper Lanterns - Salt & Vinegar [1004].wav")

                let none = try await halftunes(["play", "1004"], home: home, path: "/nonexistent")
                #expect(none.status == 1)
                #expect(none.stderr.contains("no audio player found: install mpv"))
                let missing = try await halftunes(["play", "1005"], home: home, path: bin.path)
                #expect(missing.status == 3)  // not found
                #expect(
                    missing.stderr == "halftunes: track 1005 is not in the library; download it first: halftunes download 1005\n")
            }
        }
    }
}
