import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `halftunes search` run as a process against a DemoCatalog, as a user would run it.
@Suite("halftunes search", .timeLimit(.minutes(1)))
struct SearchCommandTests {
    private func halftunes(_ arguments: [String], environment: [String: String] = [:]) async throws -> ChildProcess.Result {
        // A clean environment for the settings under test, so the developer's own do not leak in.
        try await ChildProcess.run(
            try BuiltProducts.halftunes, arguments,
            environment: ["HALFTUNES_CATALOG": "", "HALFTUNES_HOME": ""].merging(environment) { $1 })
    }

    private func matching(_ word: String, in catalog: DemoCatalog) -> [DemoTrack] {
        catalog.tracks.filter { "\($0.name) \($0.artist) \($0.album)".lowercased().contains(word) }
    }

    @Test("a table of title, artist, album, duration, download state and id")
    func table() async throws {
        try await withDemoCatalog { catalog, url in
            let result = try await halftunes(["search", "love", "--catalog", url.absoluteString])
            #expect(result.status == 0)
            #expect(result.stderr.isEmpty)
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let expected = matching("love", in: catalog)
            try #require(lines.count == expected.count + 1)
            #expect(
                lines[0].split(separator: " ", omittingEmptySubsequences: true) == [
                    "TITLE", "ARTIST", "ALBUM", "TIME", "STATE", "ID",
                ])
            for (line, track) in zip(lines.dropFirst(), expected) {
                #expect(line.hasPrefix(track.name))
                #expect(line.contains(track.artist))
                #expect(line.contains(track.album))
                let seconds = track.durationMs / 1000
                #expect(line.contains(String(format: "%d:%02d", seconds / 60, seconds % 60)))
                #expect(line.hasSuffix(String(track.id)))
            }
        }
    }

    @Test("--json prints the search results document with the documented fields")
    func json() async throws {
        try await withDemoCatalog { catalog, url in
            let result = try await halftunes(["search", "love", "--json", "--limit", "3", "--catalog", url.absoluteString])
            #expect(result.status == 0)
            let array = try #require(results(result.stdout))
            let expected = Array(matching("love", in: catalog).prefix(3))
            #expect(array.compactMap { $0["id"] as? Int } == expected.map(\.id))
            for (object, track) in zip(array, expected) {
                #expect(object["name"] as? String == track.name)
                #expect(object["artist"] as? String == track.artist)
                #expect(object["album"] as? String == track.album)
                #expect(object["durationMs"] as? Int == track.durationMs)
                #expect(object["previewURL"] as? String == "\(url)/previews/\(track.id).wav")
                #expect(object["artworkURL"] as? String == "\(url)/artwork/\(track.id)/100x100bb.svg")
            }
        }
    }

    @Test("HALFTUNES_CATALOG chooses the catalog like --catalog; Unicode terms work")
    func environment() async throws {
        try await withDemoCatalog { _, url in
            let result = try await halftunes(["search", "ラブ", "--json"], environment: ["HALFTUNES_CATALOG": url.absoluteString])
            #expect(result.status == 0)
            let array = try #require(results(result.stdout))
            #expect(array.map { $0["name"] as? String } == ["ラブソング"])
        }
    }

    @Test("the track without a preview is listed and marked")
    func noPreview() async throws {
        try await withDemoCatalog { catalog, url in
            let track = try #require(catalog.tracks.first { !$0.hasPreview })
            let table = try await halftunes(["search", track.name, "--catalog", url.absoluteString])
            #expect(table.stdout.contains("\(track.name) (no preview)"))
            let json = try await halftunes(["search", track.name, "--json", "--catalog", url.absoluteString])
            let array = try #require(results(json.stdout))
            #expect(array.first?["downloadable"] as? Bool == false)
            #expect(array.first?["previewURL"] == nil)
            #expect(array.first?["state"] as? String == "notDownloaded")
        }
    }

    @Test("nothing found is said plainly, with success")
    func nothingFound() async throws {
        try await withDemoCatalog { _, url in
            let result = try await halftunes(["search", "zzzz", "--catalog", url.absoluteString])
            #expect(result.status == 0)
            #expect(result.stdout == "No songs found for \"zzzz\".\n")
            let json = try await halftunes(["search", "zzzz", "--json", "--catalog", url.absoluteString])
            #expect(json.stdout == #"{"results":[],"v":1}"# + "\n")
        }
    }

    @Test(
        "failures are one line on stderr and a non-zero exit",
        arguments: [
            (
                ["search", "x", "--catalog", "http://127.0.0.1:9"],
                "cannot reach the catalog at 127.0.0.1:9: connection refused (offline? `halftunes demo` runs the app"
            ),
            (["search", "x", "--catalog", "file:///etc"], "the catalog URL must look like"),
        ])
    func failures(arguments: [String], says: String) async throws {
        let result = try await halftunes(arguments)
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasSuffix("\n"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains(says))
    }
}

@Suite("halftunes search filters", .timeLimit(.minutes(1)))
struct SearchFilterCommandTests {
    /// The ids a `search --json` printed, in order.
    private func ids(_ result: ChildProcess.Result) -> [Int] {
        ((ndjson(result.stdout).first?["results"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? Int }
    }

    @Test("--in artist, --offset, --explicit no, --lang: here and through serve, the same answers")
    func filters() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { home in
                func search(_ arguments: [String]) async throws -> [Int] {
                    let result = try await runHalftunes(["search", "--json"] + arguments, home: home, catalog: url)
                    #expect(result.status == 0, "\(arguments): \(result.stderr)")
                    return ids(result)
                }
                let cases: [[String]] = [
                    ["love", "--in", "artist"], ["paper lanterns", "--in", "artist", "--limit", "2", "--offset", "2"],
                    ["burn", "--explicit", "no"], ["burn"], ["love", "--in", "song", "--lang", "ja_jp", "--limit", "2"],
                ]
                var here: [[Int]] = []
                for arguments in cases { here.append(try await search(arguments)) }
                #expect(here[0].isEmpty, "no artist is called love")
                #expect(here[1] == [1003, 1004], "the third and fourth of the artist's songs")
                #expect(here[2].isEmpty && here[3] == [1012], "Slow Burn is explicit")
                #expect(here[4] == [1001, 1008])
                let server = try ChildProcess(
                    try BuiltProducts.halftunes, ["serve", "--port", "0"],
                    environment: halftunesEnvironment(home: home, catalog: url))
                _ = await server.waitForLine { $0.contains("http://127.0.0.1:") ? true : nil }
                var served: [[Int]] = []
                for arguments in cases { served.append(try await search(arguments)) }
                let bad = try await runHalftunes(["search", "x", "--lang", "fr"], home: home, catalog: url)
                server.signal(SIGTERM)
                #expect(await server.wait().status == 0)
                #expect(served == here, "the server passes the filters on")
                #expect(bad.status == 64 && bad.stderr.hasPrefix("halftunes: the value 'fr' is invalid for '--lang <lang>'"))
            }
        }
    }

    @Test(
        "the search the catalog receives: --lang, --in, --explicit, --offset and --limit as the iTunes API spells them"
    )
    func optionsAsReceived() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let arguments = [
                    "search", "love", "--lang", "ja_jp", "--in", "song", "--explicit", "no", "--offset", "5", "--limit", "3",
                ]
                let result = try await runHalftunes(arguments, home: home, catalog: url)
                #expect(result.status == 0, "\(result.stderr)")
                let received = try #require(catalog.searchRequests.last)
                #expect(received["term"] == "love")
                #expect(received["lang"] == "ja_jp", "\(received)")
                #expect(received["attribute"] == "songTerm", "\(received)")
                #expect(received["explicit"] == "No", "\(received)")
                #expect(received["offset"] == "5", "\(received)")
                #expect(received["limit"] == "3", "\(received)")
                let plain = try await runHalftunes(["search", "love"], home: home, catalog: url)
                #expect(plain.status == 0, "\(plain.stderr)")
                let defaults = try #require(catalog.searchRequests.last)
                #expect(defaults["lang"] == nil && defaults["attribute"] == nil && defaults["offset"] == nil, "\(defaults)")
            }
        }
    }
}

@Suite("halftunes usage errors", .timeLimit(.minutes(1)))
struct UsageErrorTests {
    @Test(
        "a bad value reads the same whatever the option or the check: the value, what is wanted, the command's help; exit 64",
        arguments: [
            (["search", "x", "--limit", "0"], "the value '0' is invalid for '--limit <limit>': a whole number from 1 to 200"),
            (
                ["search", "x", "--limit", "abc"],
                "the value 'abc' is invalid for '--limit <limit>': a whole number from 1 to 200"
            ),
            (
                ["search", "x", "--country", "USA"],
                "the value 'USA' is invalid for '--country <country>': a two-letter country code"
            ),
            (["pause", "abc"], "the value 'abc' is invalid for '<id>': a track id (a whole number of at least 1)"),
            (["download", "12,x"], "the value '12,x' is invalid for '<ids>': track ids are positive whole numbers"),
            (["serve", "--port", "70000"], "the value '70000' is invalid for '--port <port>': a whole number from 0 to 65535"),
            (["download", "1", "--nope"], "unknown option '--nope'"),
        ])
    func badValue(arguments: [String], says: String) async throws {
        try await withTemporaryDirectory { home in
            let result = try await runHalftunes(arguments, home: home, catalog: URL(string: "http://127.0.0.1:9")!)
            #expect(result.status == 64)
            #expect(result.stdout.isEmpty)
            let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 3, "two lines: \(result.stderr)")
            #expect(lines.first?.hasPrefix("halftunes: " + says) == true, "\(result.stderr)")
            #expect(lines.dropFirst().first == "See 'halftunes \(arguments[0]) --help'.")
        }
    }

    @Test("every command that touches downloads takes --catalog and --home, as download does")
    func sameOptionsEverywhere() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { home in
                for command in [
                    ["pause", "1002"], ["resume", "1002"], ["cancel", "1002"], ["remove", "1002"], ["play", "1002"],
                ] {
                    let result = try await ChildProcess.run(
                        try BuiltProducts.halftunes, command + ["--catalog", url.absoluteString, "--home", home.path],
                        environment: [:])
                    #expect(result.status == 3, "\(command): \(result.stderr)")  // not found: parsed, and ran
                }
                for command in [["list"], ["tag"], ["resume", "1002", "--no-tags", "--durability", "process-crash"]] {
                    let result = try await ChildProcess.run(
                        try BuiltProducts.halftunes, command + ["--catalog", url.absoluteString, "--home", home.path],
                        environment: [:])
                    #expect(result.status != 64, "\(command): \(result.stderr)")
                }
            }
        }
    }
}

@Suite("halftunes demo-catalog", .timeLimit(.minutes(1)))
struct DemoCatalogCommandTests {
    @Test("runs the catalog on a free port, answers searches, and stops on SIGTERM")
    func runsAndStops() async throws {
        let binary = try BuiltProducts.halftunes
        let server = try ChildProcess(binary, ["demo-catalog", "--port", "0"])
        let url = await server.waitForLine { line -> String? in
            guard line.hasPrefix("DemoCatalog at ") else { return nil }
            return String(line.dropFirst("DemoCatalog at ".count))
        }
        let catalogURL = try #require(url, "demo-catalog did not print its URL")
        let search = try await ChildProcess.run(binary, ["search", "fog horn", "--json", "--catalog", catalogURL])
        #expect(search.status == 0)
        let array = try #require(results(search.stdout))
        #expect(array.map { $0["name"] as? String } == ["Fog Horn"])
        server.signal(SIGTERM)
        let ended = await server.wait()
        #expect(ended.status == 0 && !ended.signaled)
    }
}

/// The `results` of a search document (`{"v":1,"results":[…]}`).
private func results(_ stdout: String) -> [[String: Any]]? {
    let object = try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any]
    return object?["v"] as? Int == 1 ? object?["results"] as? [[String: Any]] : nil
}

/// The catalog's rate limit on the command line: exit 6 and a line that says to wait, for a search
/// and for a download alike — never exit 3 ("not found").
@Suite("halftunes over a rate-limited catalog", .timeLimit(.minutes(1)))
struct RateLimitedCommandTests {
    @Test("search and download exit 6 with one line that says the catalog asks to wait")
    func rateLimited() async throws {
        try await withRateLimitedCatalog { limited in
            try await withTemporaryDirectory { home in
                for arguments in [["search", "love"], ["download", "1001"]] {
                    let result = try await runHalftunes(arguments, home: home, catalog: limited)
                    #expect(result.status == 6, "\(arguments): \(result.status) \(result.stderr)")
                    let lines = result.stderr.split(separator: "\n")
                    #expect(lines.count == 1, "\(arguments): \(result.stderr)")
                    #expect(result.stderr.lowercased().contains("wait") || result.stderr.lowercased().contains("rate"))
                }
            }
        }
    }

}
