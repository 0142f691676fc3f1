import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `halftunes download` of more ids than it queues at once (`--queue-limit`), against a DemoCatalog.
@Suite("halftunes download of a large batch", .timeLimit(.minutes(2)))
struct DownloadBatchTests {
    /// The NDJSON events, in order, as (event, track id).
    private func events(_ text: String) -> [(event: String, id: Int)] {
        text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let event = object["event"] as? String, let id = object["id"] as? Int
            else { return nil }
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

    @Test("an id the catalog lacks in a later slice: the ones queued before it finish, then exit 3")
    func refusedSlice() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                // A limit of 2: slices of one id, [1011] then [424242], which stops the feeding.
                let result = try await runHalftunes(
                    ["download", "--json", "--no-tags", "--queue-limit", "2", "1011", "424242", "1012"], home: home,
                    catalog: url)
                #expect(result.status == 3)
                #expect(result.stderr == "halftunes: the catalog has no track 424242\n")
                #expect(events(result.stdout).contains { $0 == ("completed", 1011) })
                #expect(filesIn(home.appendingPathComponent("library")).count == 1)
                #expect(catalog.previewRequests.map(\.trackId) == [1011])
            }
        }
    }

    @Test("--queue-limit must be positive: a one-line usage error")
    func badLimit() async throws {
        try await withTemporaryDirectory { home in
            let result = try await runHalftunes(
                ["download", "--queue-limit", "0", "1011"], home: home, catalog: URL(string: "http://127.0.0.1:9")!)
            #expect(result.status == 64)
            #expect(result.stderr.contains("--queue-limit is a positive number"))
        }
    }
}
