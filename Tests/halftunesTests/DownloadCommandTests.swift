import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `halftunes download / list / pause / resume / cancel` run as processes against a DemoCatalog.
@Suite("halftunes download", .timeLimit(.minutes(2)))
struct DownloadCommandTests {
    @Test("downloads into the library under a safe name; NDJSON events; a second run has nothing to do")
    func download() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let result = try await runHalftunes(["download", "1001", "1019", "--json"], home: home, catalog: url)
                #expect(result.status == 0, "\(result.stderr)")
                let events = ndjson(result.stdout)
                let completed = events.filter { $0["event"] as? String == "completed" }
                #expect(Set(completed.compactMap { $0["id"] as? Int }) == [1001, 1019])
                #expect(events.contains { $0["event"] as? String == "progress" && $0["expectedBytes"] as? Int == 1_323_044 })
                let library = home.appendingPathComponent("library")
                #expect(filesIn(library) == ["The Paper Lanterns - Love in the Harbour [1001].wav", "さくらバンド - ラブソング [1019].wav"])
                for (id, name) in [
                    (1001, "The Paper Lanterns - Love in the Harbour [1001].wav"), (1019, "さくらバンド - ラブソング [1019].wav"),
                ] {
                    #expect(
                        WAVAudio.audioHash(try Data(contentsOf: library.appendingPathComponent(name)))
                            == WAVAudio.audioHash(await catalog.preview(for: id)!.data))
                }
                let again = try await runHalftunes(["download", "1001", "--json"], home: home, catalog: url)
                #expect(again.status == 0)
                #expect(!again.stdout.contains("\"progress\""))
                #expect(catalog.previewRequests.filter { $0.trackId == 1001 }.count == 1)

                let list = try await runHalftunes(["list", "--json"], home: home, catalog: url)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
                let items = try #require(object["library"] as? [[String: Any]])
                #expect(Set(items.compactMap { $0["id"] as? Int }) == [1001, 1019])
                #expect(items.allSatisfy { $0["state"] as? String == "downloaded" && $0["v"] as? Int == 1 })
                #expect(items.allSatisfy { ($0["file"] as? String)?.hasPrefix(library.path) == true })
            }
        }
    }

    @Test("HALFTUNES_AGENT=0: the command closes its databases before it exits: no write-ahead log is left")
    func closesDatabases() async throws {
        try await withDemoCatalog { _, url in
            // Without tags the command ends right after its last download, while the service's
            // event pump may still be busy: a pump that held the service kept both databases open
            // past the end of the process (8 runs in 10 left their logs).
            let ids = (1011...1030).map(String.init)
            for round in 1...3 {
                try await withTemporaryDirectory { home in
                    let result = try await runHalftunes(
                        ["download", "--no-tags"] + ids, home: home, catalog: url, inProcess: true)
                    #expect(result.status == 0, "\(result.stderr)")
                    // Closing a WAL database copies its log into it, flushes it and deletes the log:
                    // a log left behind means the process ended with the database still open.
                    for log in ["library.sqlite-wal", "session/downloads.journal.sqlite-wal"] {
                        #expect(
                            !FileManager.default.fileExists(atPath: home.appendingPathComponent(log).path),
                            "round \(round): \(log) left behind")
                    }
                }
            }
        }
    }

    @Test("without a terminal, plain progress lines")
    func plainLines() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { home in
                let result = try await runHalftunes(["download", "1002"], home: home, catalog: url)
                #expect(result.status == 0)
                #expect(!result.stdout.contains("\u{1B}"))
                #expect(
                    result.stdout.contains(
                        "Paper Boats — done → \(home.path)/library/The Paper Lanterns - Paper Boats [1002].wav"))
            }
        }
    }

    @Test("failures: unknown id, a track without a preview, a 404 preview; one line each, each its exit status")
    func failures() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let unknown = try await runHalftunes(["download", "424242"], home: home, catalog: url)
                #expect(unknown.status == 3)  // not found
                #expect(unknown.stderr == "halftunes: the catalog has no track 424242\n")
                let noPreview = try await runHalftunes(["download", "1010"], home: home, catalog: url)
                #expect(noPreview.status == 2)  // bad input
                #expect(noPreview.stderr.contains("has no preview"))
                catalog.setFaults(PreviewFaults(failure: (404, 1)), for: 1003)
                let gone = try await runHalftunes(["download", "1003", "--json"], home: home, catalog: url)
                #expect(gone.status == 8)  // a download failed
                let failed = ndjson(gone.stdout).first { $0["event"] as? String == "failed" }
                #expect((failed?["reason"] as? String)?.contains("HTTP 404") == true)
                #expect(filesIn(home.appendingPathComponent("library")).isEmpty)
            }
        }
    }

    @Test("SIGKILL mid-download, run again: byte-exact, with at most about 1 MiB fetched twice")
    func crashAndRecover() async throws {
        try await withDemoCatalog { catalog, url in
            let preview = try #require(await catalog.preview(for: 1005))
            catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: 1005)
            // Mid-download whatever the machine's speed: the body waits at 600 KB until released.
            catalog.hold(1005, atByte: 600_000)
            try await withTemporaryDirectory { home in
                let binary = try BuiltProducts.halftunes
                let environment = halftunesEnvironment(home: home, catalog: url)
                let first = try ChildProcess(binary, ["download", "1005", "--json"], environment: environment)
                let reached = await first.waitForLine { receivedBytes($0, atLeast: 400_000) }
                #expect(reached != nil)
                let killed = await crashOwners(first, home: home)
                #expect(killed.signaled && killed.status == SIGKILL)
                let parts = filesIn(home.appendingPathComponent("library")).filter { $0.hasSuffix(".part") }
                #expect(parts.count == 1)

                catalog.setFaults(PreviewFaults(), for: 1005)
                catalog.release(1005)
                let second = try await ChildProcess.run(binary, ["download", "1005", "--json"], environment: environment)
                #expect(second.status == 0, "\(second.stderr)")
                let files = filesIn(home.appendingPathComponent("library"))
                #expect(files.count == 1 && !files[0].hasSuffix(".part"))
                let data = try Data(contentsOf: home.appendingPathComponent("library/\(files[0])"))
                #expect(WAVAudio.audioHash(data) == WAVAudio.audioHash(preview.data))
                let refetched = catalog.bytesSent(for: 1005) - preview.data.count
                #expect(refetched <= 1 << 20, "fetched \(refetched) bytes twice")
                let requests = catalog.previewRequests.filter { $0.trackId == 1005 }
                #expect(requests.count == 2)
                #expect(requests.last?.status == 206)
            }
        }
    }

    @Test("HALFTUNES_AGENT=0: pause, list, resume and cancel act on the session between runs")
    func controlCommands() async throws {
        try await withDemoCatalog { catalog, url in
            // Slow enough that the download outlasts the look at the lock below: at 300 KB/s, with
            // the suite and a build beside it, it once ended before the Ctrl-C (exit 130, nothing
            // paused). The Ctrl-C follows the first progress line, so the rate costs no time.
            catalog.setFaults(PreviewFaults(bytesPerSecond: 100_000), for: 1006)
            try await withTemporaryDirectory { home in
                let binary = try BuiltProducts.halftunes
                let environment = halftunesEnvironment(home: home, catalog: url, inProcess: true)
                let running = try ChildProcess(binary, ["download", "1006", "--json"], environment: environment)
                _ = await running.waitForLine { $0.contains("\"progress\"") ? true : nil }
                // While the download runs, another process cannot open the session.
                let locked = try await runHalftunes(["pause", "1006"], home: home, catalog: url, inProcess: true)
                #expect(locked.status == 4)  // conflict: the session is in use
                #expect(locked.stderr.contains("in use by process \(running.pid)"))
                // Ctrl-C pauses and keeps the partial data.
                running.signal(SIGINT)
                let interrupted = await running.wait()
                #expect(interrupted.status == 130)
                #expect(interrupted.stderr.contains("Paused"))

                let list = try await runHalftunes(["list", "--json"], home: home, catalog: url, inProcess: true)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
                let downloads = try #require(object["downloads"] as? [[String: Any]])
                #expect(downloads.first?["state"] as? String == "paused")
                let kept = try #require(downloads.first?["receivedBytes"] as? Int)
                #expect(kept > 0)

                // Throttled still, so the resumed download reports progress mid-body.
                catalog.setFaults(PreviewFaults(bytesPerSecond: 2_000_000), for: 1006)
                let resumed = try await runHalftunes(["resume", "1006", "--json"], home: home, catalog: url, inProcess: true)
                #expect(resumed.status == 0, "\(resumed.stderr)")
                #expect(catalog.previewRequests.last { $0.trackId == 1006 }?.range == "bytes=\(kept)-")
                // Progress on the NDJSON starts at the bytes kept and never goes back.
                let progress = ndjson(resumed.stdout).filter { $0["event"] as? String == "progress" }.compactMap {
                    $0["receivedBytes"] as? Int
                }
                #expect(progress.first.map { $0 >= kept } == true, "\(progress.prefix(3)) after keeping \(kept)")
                #expect(progress == progress.sorted())
                let files = filesIn(home.appendingPathComponent("library"))
                #expect(files == ["The Paper Lanterns - Coming Home [1006].wav"])
                #expect(
                    WAVAudio.audioHash(try Data(contentsOf: home.appendingPathComponent("library/\(files[0])")))
                        == WAVAudio.audioHash(await catalog.preview(for: 1006)!.data))

                // Cancel a paused download: nothing is left behind.
                catalog.setFaults(PreviewFaults(bytesPerSecond: 100_000), for: 1007)
                let second = try ChildProcess(binary, ["download", "1007", "--json"], environment: environment)
                _ = await second.waitForLine { $0.contains("\"progress\"") ? true : nil }
                second.signal(SIGINT)
                _ = await second.wait()
                let cancelled = try await runHalftunes(["cancel", "1007"], home: home, catalog: url, inProcess: true)
                #expect(cancelled.status == 0, "\(cancelled.stderr)")
                #expect(filesIn(home.appendingPathComponent("library")) == files)
                let unknown = try await runHalftunes(["cancel", "1007"], home: home, catalog: url, inProcess: true)
                #expect(unknown.status == 3)  // not found
                #expect(unknown.stderr == "halftunes: track 1007 is not being downloaded\n")
            }
        }
    }

    @Test("a reader that goes away (| head -1) ends the command quietly with 141, not a crash")
    func readerGoesAway() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { home in
                // halftunes is bash's child here: it gets its own death signal, as ChildProcess gives bash.
                let script =
                    #"set -o pipefail; setpriv --pdeathsig KILL -- "$0" download 1001 1002 1003 --json | head -1; "#
                    + #"echo "status=${PIPESTATUS[0]}""#
                let result = try await ChildProcess.run(
                    URL(fileURLWithPath: "/bin/bash"), ["-c", script, try BuiltProducts.halftunes.path],
                    environment: ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": url.absoluteString])
                #expect(result.stdout.hasSuffix("status=141\n"), "\(result.stdout)")
                #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("crashed"), "\(result.stderr)")
            }
        }
    }
}
