import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `halftunes list` and `search` while a foreground `halftunes download` run with `HALFTUNES_AGENT=0`
/// owns the session, and after (with the agent, the agent owns it and every command acts through it).
@Suite("halftunes list and search beside a download", .timeLimit(.minutes(2)))
struct ListBesideDownloadTests {
    @Test("list and search show the running download with the bytes on disk, without taking the session; then paused")
    func listBesideDownload() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let filed = try await runHalftunes(["download", "1007"], home: home, catalog: url, inProcess: true)
                #expect(filed.status == 0, "\(filed.stderr)")
                // Slow enough to be mid-body through both listings below.
                catalog.setFaults(PreviewFaults(bytesPerSecond: 100_000), for: 1006)
                let environment = halftunesEnvironment(home: home, catalog: url, inProcess: true)
                let running = try ChildProcess(
                    try BuiltProducts.halftunes, ["download", "1006", "--json"], environment: environment)
                _ = await running.waitForLine { $0.contains("\"progress\"") ? true : nil }
                let library = home.appendingPathComponent("library")
                let partial = try #require(filesIn(library).first { $0.hasSuffix(".part") })
                let partialPath = library.appendingPathComponent(partial).path
                let partialSize = {
                    ((try? FileManager.default.attributesOfItem(atPath: partialPath))?[.size] as? NSNumber)?.intValue ?? -1
                }

                let before = partialSize()
                let listed = try await runHalftunes(["list", "--json"], home: home, catalog: url, inProcess: true)
                let after = partialSize()
                #expect(listed.status == 0, "\(listed.stderr)")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
                let downloads = try #require(object["downloads"] as? [[String: Any]])
                #expect(downloads.map { $0["id"] as? Int } == [1006])
                #expect(downloads.first?["state"] as? String == "downloading")
                let received = try #require(downloads.first?["receivedBytes"] as? Int)
                #expect(received >= before && received <= after, "listed \(received), on disk \(before)…\(after)")
                #expect(await catalog.preview(for: 1006)?.data.count == downloads.first?["expectedBytes"] as? Int)
                let items = try #require(object["library"] as? [[String: Any]])
                #expect(items.map { $0["id"] as? Int } == [1007])

                // A search shows the track downloading too (it never opens the session).
                let found = try await searchResult(1006, home: home, catalog: url)
                #expect(found["state"] as? String == "downloading")
                #expect((found["receivedBytes"] as? Int).map { $0 >= before } == true, "\(found)")

                let text = try await runHalftunes(["list"], home: home, catalog: url, inProcess: true)
                #expect(text.status == 0, "\(text.stderr)")
                for shown in ["downloading", "Coming Home", "1 track", "1007"] {
                    #expect(text.stdout.contains(shown), "\(text.stdout)")
                }

                // The download still owns its session and ends as Ctrl-C ends it.
                let locked = try await runHalftunes(["pause", "1006"], home: home, catalog: url, inProcess: true)
                #expect(locked.status == 4 && locked.stderr.contains("in use by process \(running.pid)"))
                // One line, saying what to do.
                #expect(locked.stderr.hasSuffix("halftunes list shows its downloads meanwhile\n"), "\(locked.stderr)")
                #expect(locked.stderr.split(separator: "\n").count == 1)
                running.signal(SIGINT)
                #expect(await running.wait().status == 130)

                // With no owner, a search shows the track paused, with the bytes its partial file keeps.
                let paused = try await searchResult(1006, home: home, catalog: url)
                #expect(paused["state"] as? String == "paused")
                #expect(paused["receivedBytes"] as? Int == partialSize(), "\(paused)")
            }
        }
    }

    /// The result for `id` of `halftunes search "coming home" --json` (the DemoCatalog's 1006).
    private func searchResult(_ id: Int, home: URL, catalog: URL) async throws -> [String: Any] {
        let search = try await runHalftunes(["search", "coming home", "--json"], home: home, catalog: catalog, inProcess: true)
        try #require(search.status == 0, "\(search.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        return try #require(results.first { $0["id"] as? Int == id })
    }
}
