import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `halftunes list` while a foreground `halftunes download` owns the session.
@Suite("halftunes list beside a download", .timeLimit(.minutes(2)))
struct ListBesideDownloadTests {
    @Test("lists the running download with the bytes on disk, and the library, without taking the session")
    func listBesideDownload() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let filed = try await runHalftunes(["download", "1007"], home: home, catalog: url)
                #expect(filed.status == 0, "\(filed.stderr)")
                // Slow enough to be mid-body through both listings below.
                catalog.setFaults(PreviewFaults(bytesPerSecond: 100_000), for: 1006)
                let environment = halftunesEnvironment(home: home, catalog: url)
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
                let listed = try await runHalftunes(["list", "--json"], home: home, catalog: url)
                let after = partialSize()
                #expect(listed.status == 0, "\(listed.stderr)")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
                let downloads = try #require(object["downloads"] as? [[String: Any]])
                #expect(downloads.map { $0["id"] as? Int } == [1006])
                #expect(downloads.first?["state"] as? String == "downloading")
                let received = try #require(downloads.first?["receivedBytes"] as? Int)
                #expect(received >= before && received <= after, "listed \(received), on disk \(before)…\(after)")
                #expect(downloads.first?["expectedBytes"] as? Int == catalog.preview(for: 1006)?.data.count)
                let items = try #require(object["library"] as? [[String: Any]])
                #expect(items.map { $0["id"] as? Int } == [1007])

                let text = try await runHalftunes(["list"], home: home, catalog: url)
                #expect(text.status == 0, "\(text.stderr)")
                for shown in ["downloading", "Coming Home", "1 track", "1007"] {
                    #expect(text.stdout.contains(shown), "\(text.stdout)")
                }

                // The download still owns its session and ends as Ctrl-C ends it.
                let locked = try await runHalftunes(["pause", "1006"], home: home, catalog: url)
                #expect(locked.status == 4 && locked.stderr.contains("in use by process \(running.pid)"))
                // One line, saying what to do.
                #expect(locked.stderr.hasSuffix("halftunes list shows its downloads meanwhile\n"), "\(locked.stderr)")
                #expect(locked.stderr.split(separator: "\n").count == 1)
                running.signal(SIGINT)
                #expect(await running.wait().status == 130)
            }
        }
    }
}
