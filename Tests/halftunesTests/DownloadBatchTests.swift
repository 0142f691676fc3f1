import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `halftunes download` of more ids than it queues at once (`--queue-limit`), against a DemoCatalog.
@Suite("halftunes download of a large batch", .timeLimit(.minutes(2)))
struct DownloadBatchTests {
    /// The NDJSON events, in order, as (event, track id).
    private func events(_ text: String) -> [(event: String, id: Int)] {
        ndjson(text).compactMap { object in
            guard let event = object["event"] as? String, let id = object["id"] as? Int else { return nil }
            return (event, id)
        }
    }

    @Test("every file lands, each fetched once, and never more than --queue-limit unfinished at once")
    func bounded() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let ids = Array(1011...1030)
                let result = try await runHalftunes(
                    ["download", "--json", "--no-tags", "--queue-limit", "4"] + ids.map(String.init), home: home, catalog: url)
                #expect(result.status == 0, "\(result.stderr)")
                // An id is unfinished from its first line to its `completed`.
                var unfinished = Set<Int>()
                var most = 0
                var completed: [Int] = []
                for (event, id) in events(result.stdout) {
                    if event == "completed" {
                        unfinished.remove(id)
                        completed.append(id)
                    } else if !completed.contains(id) {
                        unfinished.insert(id)
                        most = max(most, unfinished.count)
                    }
                }
                #expect(most == 4, "at most 4 at once, and the feed kept 4 going")
                #expect(Set(completed) == Set(ids))
                #expect(filesIn(home.appendingPathComponent("library")).count == ids.count)
                let fetched = catalog.previewRequests.map(\.trackId)
                #expect(fetched.sorted() == ids, "each preview fetched once: \(fetched)")
            }
        }
    }

    @Test("an id the catalog lacks in a later slice: named, the ids before and after it download, then exit 3")
    func unknownInLaterSlice() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                // A limit of 2: slices of one id, [1011], [424242], [1012].
                let result = try await runHalftunes(
                    ["download", "--json", "--no-tags", "--queue-limit", "2", "1011", "424242", "1012"], home: home,
                    catalog: url)
                #expect(result.status == 3)
                #expect(
                    result.stderr
                        == "halftunes: Track 424242 — not in the catalog\nhalftunes: the catalog has no track 424242\n")
                #expect(events(result.stdout).contains { $0 == ("completed", 1011) })
                #expect(events(result.stdout).contains { $0 == ("completed", 1012) })
                #expect(filesIn(home.appendingPathComponent("library")).count == 2)
                #expect(catalog.previewRequests.map(\.trackId).sorted() == [1011, 1012])
            }
        }
    }

    @Test("known and unknown ids in one slice, here and through serve: the known download, the unknown are named, exit 3")
    func unknownBesideKnown() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let here = try await runHalftunes(["download", "1005", "99999"], home: home, catalog: url)
                #expect(here.status == 3)
                #expect(here.stdout.contains("Track 99999 — not in the catalog\n"))
                #expect(here.stdout.contains("Lighthouse Keeper — done → "))
                #expect(here.stderr == "halftunes: the catalog has no track 99999\n")
                let server = try ChildProcess(
                    try BuiltProducts.halftunes, ["serve", "--port", "0"],
                    environment: halftunesEnvironment(home: home, catalog: url))
                _ = await server.waitForLine { $0.contains("http://127.0.0.1:") ? true : nil }
                let served = try await runHalftunes(["download", "99998,1006,99997"], home: home, catalog: url)
                server.signal(SIGTERM)
                #expect(await server.wait().status == 0)
                #expect(served.status == 3, "\(served.stderr)")
                #expect(served.stdout.contains("Track 99998 — not in the catalog\nTrack 99997 — not in the catalog\n"))
                #expect(served.stderr == "halftunes: the catalog has no track 99998, 99997\n")
                #expect(filesIn(home.appendingPathComponent("library")).count == 2)
                #expect(catalog.previewRequests.map(\.trackId).sorted() == [1005, 1006])
            }
        }
    }

    @Test("SIGKILL with ids not yet queued: the same command again resumes the queued ones and fetches the rest, byte-exact")
    func crashMidBatch() async throws {
        try await withDemoCatalog { catalog, url in
            let ids = Array(1011...1016)
            // The first two slow: at a limit of 2 (slices of one id) they hold the queue full.
            // Mid-download whatever the machine's speed: their bodies wait at 500 KB until released.
            for id in ids.prefix(2) {
                catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: id)
                catalog.hold(id, atByte: 500_000)
            }
            try await withTemporaryDirectory { home in
                let binary = try BuiltProducts.halftunes
                let environment = halftunesEnvironment(home: home, catalog: url)
                let arguments = ["download", "--json", "--no-tags", "--queue-limit", "2"] + ids.map(String.init)
                let first = try ChildProcess(binary, arguments, environment: environment)
                let reached = await first.waitForLine { receivedBytes($0, atLeast: 300_000) }
                #expect(reached != nil)
                #expect(await crashOwners(first, home: home).signaled)

                // What the journal holds: the two queued, none of the ids after them.
                let list = try await runHalftunes(["list", "--json"], home: home, catalog: url)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
                let downloads = try #require(object["downloads"] as? [[String: Any]])
                #expect(Set(downloads.compactMap { $0["id"] as? Int }) == Set(ids.prefix(2)))

                for id in ids.prefix(2) {
                    catalog.setFaults(PreviewFaults(), for: id)
                    catalog.release(id)
                }
                let second = try await ChildProcess.run(binary, arguments, environment: environment)
                #expect(second.status == 0, "\(second.stderr)")
                let library = home.appendingPathComponent("library")
                let files = filesIn(library)
                #expect(files.count == ids.count && files.allSatisfy { !$0.hasSuffix(".part") }, "\(files)")
                for id in ids {
                    let preview = try #require(await catalog.preview(for: id))
                    let name = try #require(files.first { $0.hasSuffix("[\(id)].wav") })
                    // The audio as sent (an agent `list` brings up may tag what it resumes).
                    let onDisk = try Data(contentsOf: library.appendingPathComponent(name))
                    #expect(WAVAudio.audioHash(onDisk) == WAVAudio.audioHash(preview.data), "\(name)")
                    let requests = catalog.previewRequests.filter { $0.trackId == id }
                    // The two cut short resume with a range; the others were never asked for before.
                    #expect(requests.map(\.status) == (ids.prefix(2).contains(id) ? [200, 206] : [200]), "\(id)")
                }
            }
        }
    }

    @Test("--queue-limit must be positive: a usage error that names the value")
    func badLimit() async throws {
        try await withTemporaryDirectory { home in
            let result = try await runHalftunes(
                ["download", "--queue-limit", "0", "1011"], home: home, catalog: URL(string: "http://127.0.0.1:9")!)
            #expect(result.status == 64)
            #expect(
                result.stderr.hasPrefix(
                    "halftunes: the value '0' is invalid for '--queue-limit <n>': a whole number of at least 1\n"))
        }
    }
}
