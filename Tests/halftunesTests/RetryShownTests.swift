import DemoCatalog
import Foundation
import TestSupport
import Testing

/// A download waiting to try again says so: a line when piped, an event with `--json`.
@Suite("halftunes download: retries shown", .timeLimit(.minutes(2)))
struct RetryShownTests {
    @Test("503 with Retry-After: 1, once: a piped run prints when and why it tries again, then finishes")
    func plainLine() async throws {
        try await withDemoCatalog { catalog, url in
            catalog.setFaults(PreviewFaults(unavailableResponses: 1, retryAfterSeconds: 1), for: 1002)
            try await withTemporaryDirectory { home in
                let result = try await runHalftunes(["download", "1002"], home: home, catalog: url)
                #expect(result.status == 0)
                let lines = result.stdout.split(separator: "\n").map(String.init)
                let retry = try #require(
                    lines.firstIndex(of: "Paper Boats — Retrying in 1.0 s: the server answered HTTP 503"), "\(lines)")
                let done = try #require(lines.firstIndex { $0.hasPrefix("Paper Boats — done → ") }, "\(lines)")
                #expect(retry < done)
                // The server's own record: one 503, then the preview.
                #expect(catalog.previewRequests.filter { $0.trackId == 1002 }.map(\.status) == [503, 200])
            }
        }
    }

    @Test("--json: a retrying event (reason, seconds, still downloading) before the completion")
    func jsonEvent() async throws {
        try await withDemoCatalog { catalog, url in
            catalog.setFaults(PreviewFaults(unavailableResponses: 2, retryAfterSeconds: 1), for: 1003)
            try await withTemporaryDirectory { home in
                let result = try await runHalftunes(["download", "1003", "--json"], home: home, catalog: url)
                #expect(result.status == 0)
                let events = ndjson(result.stdout)
                let retrying = events.filter { $0["event"] as? String == "retrying" }
                #expect(retrying.count == 2)
                for event in retrying {
                    #expect(event["id"] as? Int == 1003)
                    #expect(event["state"] as? String == "downloading")
                    #expect(event["reason"] as? String == "the server answered HTTP 503")
                    #expect(event["retryAfter"] as? Double == 1)
                }
                let last = try #require(events.last)
                #expect(last["event"] as? String == "completed")
                #expect(catalog.previewRequests.filter { $0.trackId == 1003 }.map(\.status) == [503, 503, 200])
            }
        }
    }
}
