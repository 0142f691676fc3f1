import AsyncHTTPClient
import DemoCatalog
import Foundation
import TestSupport
import Testing

/// One download, seen through the three edges that describe downloads: the command line's NDJSON
/// (`download --json`), the page's Server-Sent Events (`/api/events`) and `list --json`.
@Suite("One wire schema", .timeLimit(.minutes(1)))
struct WireSchemaTests {
    private func objects(_ lines: [Substring]) -> [[String: Any]] {
        lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// A JSON object in one canonical spelling, to compare two of them.
    private func canonical(_ object: [String: Any]?) -> String? {
        guard let object, let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }

    @Test("the CLI's --json, the page's event stream and list --json give the same keys and values for a download")
    func sameDownloadEverywhere() async throws {
        try await withDemoCatalog { _, catalogURL in
            try await withTemporaryDirectory { home in
                let environment = ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": catalogURL.absoluteString]
                let server = try ChildProcess(try BuiltProducts.halftunes, ["serve", "--port", "0"], environment: environment)
                defer { server.signal(SIGTERM) }
                let found = await server.waitForLine { line -> URL? in
                    guard let range = line.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression) else { return nil }
                    return URL(string: String(line[range]))
                }
                let url = try #require(found, "serve did not print its URL")

                // The page's stream, subscribed before the download starts (its head comes once subscribed).
                let stream = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: url.absoluteString + "/api/events"), timeout: .seconds(30))
                let page = Task {
                    var text = ""
                    for try await buffer in stream.body {
                        text += String(buffer: buffer)
                        if text.contains(#""event":"completed""#), text.hasSuffix("\n\n") { break }
                    }
                    return text
                }
                let download = try await ChildProcess.run(
                    try BuiltProducts.halftunes, ["download", "1001", "--json"], environment: environment)
                #expect(download.status == 0, "\(download.stderr)")
                let events = objects(
                    try await page.value.split(separator: "\n").filter { $0.hasPrefix("data: ") }.map { $0.dropFirst(6) })
                let lines = objects(download.stdout.split(separator: "\n"))
                let list = try await ChildProcess.run(try BuiltProducts.halftunes, ["list", "--json"], environment: environment)
                let listing = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
                let item = try #require((listing["library"] as? [[String: Any]])?.first { $0["id"] as? Int == 1001 })

                // Every object that describes the download carries v, its id and its state at its top level.
                for object in lines + events + [item, listing] where object["downloads"] == nil {
                    #expect(object["v"] as? Int == 1 && object["id"] as? Int == 1001 && object["state"] is String, "\(object)")
                }
                #expect(listing["v"] as? Int == 1)
                // The same event is the same object on both streams.
                let completed = { (objects: [[String: Any]]) in objects.first { $0["event"] as? String == "completed" } }
                #expect(canonical(completed(lines)) != nil)
                #expect(canonical(completed(lines)) == canonical(completed(events)))
                let progress = { (objects: [[String: Any]]) in objects.last { $0["event"] as? String == "progress" } }
                #expect(progress(lines).map { Set($0.keys) } == progress(events).map { Set($0.keys) })
                // list's entry agrees with the completed event on every key they share, the file among them.
                let event = try #require(completed(events))
                let shared = Set(event.keys).intersection(item.keys)
                #expect(shared.isSuperset(of: ["v", "id", "state", "file"]))
                for key in shared { #expect(canonical([key: event[key]!]) == canonical([key: item[key]!]), "\(key)") }
            }
        }
    }
}
