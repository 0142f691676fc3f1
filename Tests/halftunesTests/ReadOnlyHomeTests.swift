import DemoCatalog
import Foundation
import TestSupport
import Testing

/// A home on a read-only file system: what only looks works, what writes says so in one line.
@Suite(
    "halftunes with a read-only home", .timeLimit(.minutes(1)),
    .enabled(if: ReadOnlyMount.available, "needs unshare -r -m (user and mount namespaces) for a read-only mount"))
struct ReadOnlyHomeTests {
    private let refusal = "is read-only; choose another with --home or HALFTUNES_HOME (list, search and play work in this one)\n"

    @Test(
        "with a library there: list, search and list --json read it; download, pause, remove, tag and serve refuse in one line, exit 2"
    )
    func withLibrary() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let binary = try BuiltProducts.halftunes
                let environment = halftunesEnvironment(home: home, catalog: url)
                #expect(try await runHalftunes(["download", "1002", "1003"], home: home, catalog: url).status == 0)
                // The home turns read-only under no agent (one that runs on would keep writing it);
                // the agent stopped closes its databases, folding their logs in.
                let started = Date()
                let stop = await TestAgents.stop(homesIn: home)
                let took = Date().timeIntervalSince(started)
                #expect(stop.stopped == 1 && stop.killed == 0, "SIGTERM did not end the agent in 30 s")
                let files = try FileManager.default.subpathsOfDirectory(atPath: home.path)
                let log = (try? String(contentsOf: home.appendingPathComponent("agent.log"), encoding: .utf8)) ?? ""
                #expect(!files.contains { $0.hasSuffix("-wal") }, "\(files.sorted()) after \(took) s; agent.log: \(log)")
                let before = try FileManager.default.subpathsOfDirectory(atPath: home.path).sorted()

                let list = try await ReadOnlyMount.run(home, binary, ["list"], environment: environment)
                #expect(list.status == 0, "\(list.stderr)")
                #expect(list.stderr.isEmpty)
                #expect(
                    list.stdout.contains("2 tracks") && list.stdout.contains("Paper Boats") && list.stdout.contains("Tidewater"))
                let json = try await ReadOnlyMount.run(home, binary, ["list", "--json"], environment: environment)
                let library = (ndjson(json.stdout).first?["library"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }
                #expect(library?.sorted() == [1002, 1003])
                let search = try await ReadOnlyMount.run(home, binary, ["search", "paper boats"], environment: environment)
                #expect(search.status == 0, "\(search.stderr)")
                #expect(search.stderr.isEmpty)
                #expect(search.stdout.split(separator: "\n").contains { $0.contains("Paper Boats") && $0.contains("downloaded") })

                for command in [
                    ["download", "1004"], ["pause", "1002"], ["remove", "1002"], ["tag"], ["serve", "--port", "0"],
                ] {
                    let result = try await ReadOnlyMount.run(home, binary, command, environment: environment)
                    #expect(result.status == 2, "\(command)")
                    #expect(result.stderr == "halftunes: the home \(home.path) " + refusal, "\(command)")
                }
                #expect(catalog.previewRequests.count == 2, "nothing fetched for the refused download")
                #expect(try FileManager.default.subpathsOfDirectory(atPath: home.path).sorted() == before)
            }
        }
    }

    @Test("a home not made yet under a read-only folder: search works, list says the library is empty, download refuses")
    func notMadeYet() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let home = folder.appendingPathComponent("home")
                let binary = try BuiltProducts.halftunes
                let environment = halftunesEnvironment(home: home, catalog: url)
                let search = try await ReadOnlyMount.run(folder, binary, ["search", "love"], environment: environment)
                #expect(search.status == 0, "\(search.stderr)")
                #expect(search.stdout.contains("Love in the Harbour"))
                let list = try await ReadOnlyMount.run(folder, binary, ["list"], environment: environment)
                #expect(list.status == 0, "\(list.stderr)")
                #expect(list.stdout.hasPrefix("Nothing downloaded yet."))
                let download = try await ReadOnlyMount.run(folder, binary, ["download", "1001"], environment: environment)
                #expect(download.status == 2)
                #expect(download.stderr == "halftunes: the home \(home.path) " + refusal)
                #expect(!FileManager.default.fileExists(atPath: home.path))
            }
        }
    }
}
