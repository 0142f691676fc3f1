import Foundation
import ITunesSearch
import Testing

@testable import HalfTunesKit
@testable import HalfTunesTerminal

@Suite("Settings")
struct SettingsTests {
    @Test("home: --home, then HALFTUNES_HOME, then XDG_DATA_HOME, then ~/.local/share")
    func home() {
        let env = ["HOME": "/home/u", "XDG_DATA_HOME": "/xdg", "HALFTUNES_HOME": "/ht"]
        #expect(HalfTunesHome.resolve(explicit: "/flag", environment: env).root.path == "/flag")
        #expect(HalfTunesHome.resolve(environment: env).root.path == "/ht")
        #expect(HalfTunesHome.resolve(environment: env.merging(["HALFTUNES_HOME": ""]) { $1 }).root.path == "/xdg/halftunes")
        #expect(HalfTunesHome.resolve(environment: ["HOME": "/home/u"]).root.path == "/home/u/.local/share/halftunes")
        #expect(HalfTunesHome.resolve(explicit: "~/music", environment: env).root.path == "/home/u/music")
        // A relative XDG_DATA_HOME is invalid by the spec and ignored.
        #expect(
            HalfTunesHome.resolve(environment: ["HOME": "/h", "XDG_DATA_HOME": "rel"]).root.path == "/h/.local/share/halftunes")
        let home = HalfTunesHome(root: URL(fileURLWithPath: "/data"))
        #expect(home.library.path == "/data/library")
        #expect(home.session.path == "/data/session")
    }

    @Test("catalog: --catalog, then HALFTUNES_CATALOG, then the live API (paced)")
    func catalog() throws {
        let live = try CatalogSetting.configuration(environment: [:])
        #expect(live.baseURL.absoluteString == "https://itunes.apple.com")
        #expect(live.callsPerMinute == 20)
        let env = try CatalogSetting.configuration(environment: ["HALFTUNES_CATALOG": "http://127.0.0.1:8081"])
        #expect(env.baseURL.absoluteString == "http://127.0.0.1:8081")
        #expect(env.callsPerMinute == nil)  // a local catalog needs no pacing
        let flag = try CatalogSetting.configuration(
            explicit: "https://mirror.example", environment: ["HALFTUNES_CATALOG": "http://127.0.0.1:8081"])
        #expect(flag.baseURL.absoluteString == "https://mirror.example")
        #expect(flag.callsPerMinute == 20)
        #expect(throws: SettingError.self) { try CatalogSetting.configuration(explicit: "ftp://x") }
        #expect(throws: SettingError.self) { try CatalogSetting.configuration(explicit: "not a url") }
    }
}

@Suite("Terminal text")
struct TerminalTextTests {
    @Test("wide characters and emoji take two columns")
    func widths() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("ラブ") == 4)
        #expect(DisplayWidth.of("夜明け") == 6)
        #expect(DisplayWidth.of("💖") == 2)
        #expect(DisplayWidth.of("é") == 1)
        #expect(DisplayWidth.of("e\u{301}") == 1)
    }

    @Test("truncation keeps within the columns and marks the cut")
    func truncate() {
        #expect(DisplayWidth.truncate("Hello, world", to: 6) == "Hello…")
        #expect(DisplayWidth.truncate("short", to: 10) == "short")
        #expect(DisplayWidth.truncate("ラブソング", to: 5) == "ラブ…")
        #expect(DisplayWidth.of(DisplayWidth.truncate("ラブソング", to: 5)) <= 5)
    }

    @Test("control characters and direction overrides cannot reach the terminal")
    func printable() {
        #expect(DisplayWidth.printable("a\u{1B}[2Jb") == "a [2Jb")
        #expect(DisplayWidth.printable("x\u{202E}y\n") == "x y ")
    }

    @Test("the table aligns columns and fits the terminal")
    func table() {
        let tracks = [
            Track(id: 1, name: "A very long title that goes on and on", artist: "Someone", album: "Album", durationMs: 61_000),
            Track(id: 22, name: "ラブソング", artist: "さくらバンド", album: nil, durationMs: nil),
        ]
        let wide = TrackTable().render(tracks).split(separator: "\n").map(String.init)
        #expect(wide.count == 3)
        #expect(wide[1].contains("1:01"))
        #expect(wide[2].contains("—"))
        #expect(wide[2].contains("(no preview)"))
        // Columns line up: ARTIST starts at the same display column on every line.
        let columns = zip(wide, ["ARTIST", "Someone", "さくらバンド"]).map { line, artist in
            DisplayWidth.of(String(line[..<line.range(of: artist)!.lowerBound]))
        }
        #expect(Set(columns).count == 1)
        let narrow = TrackTable(maxWidth: 50).render(tracks).split(separator: "\n").map(String.init)
        #expect(narrow.allSatisfy { DisplayWidth.of($0) <= 50 })
        #expect(narrow[1].contains("…"))
    }

    @Test("a bandwidth cap as curl writes it: --limit-rate, then HALFTUNES_LIMIT_RATE; k, m, g are powers of 1024")
    func rate() throws {
        #expect(RateSetting.parse("500k") == 512_000)
        #expect(RateSetting.parse("2M") == 2_097_152)
        #expect(RateSetting.parse("1.5m") == 1_572_864)
        #expect(RateSetting.parse("1048576") == 1_048_576)
        for bad in ["", "0", "-5k", "fast", "5x", "k"] { #expect(RateSetting.parse(bad) == nil, "\(bad)") }
        #expect(try RateSetting.bytesPerSecond(explicit: nil, environment: ["HALFTUNES_LIMIT_RATE": "1k"]) == 1024)
        #expect(try RateSetting.bytesPerSecond(explicit: "2k", environment: ["HALFTUNES_LIMIT_RATE": "1k"]) == 2048)
        #expect(try RateSetting.bytesPerSecond(explicit: nil, environment: [:]) == nil)
        #expect {
            try RateSetting.bytesPerSecond(explicit: nil, environment: ["HALFTUNES_LIMIT_RATE": "lots"])
        } throws: { "\($0)".hasPrefix("HALFTUNES_LIMIT_RATE: \"lots\" is not a rate") }
    }

    @Test("the total line names the cap")
    func cappedTotal() {
        var writes: [String] = []
        let display = ProgressDisplay(
            mode: .terminal, columns: { 100 }, rows: { 24 }, write: { writes.append($0) }, warn: { _ in })
        display.cap = 512_000
        for id in [1, 2] {
            display.add(
                DownloadDocument(
                    DownloadStatus(
                        track: Track(id: id, name: "Track \(id)", artist: "A"), state: .downloading, receivedBytes: 10,
                        expectedBytes: 100, failure: nil, file: nil)))
        }
        #expect(writes.joined().contains("Total (0 of 2 done, capped at 512.0 KB/s)"), "\(writes.joined())")
    }
}
