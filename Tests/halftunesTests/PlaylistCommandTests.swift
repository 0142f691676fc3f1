import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `halftunes export` writes the library as an M3U8 another player reads (ffprobe opens every
/// entry); `halftunes import` downloads what a playlist or a list of ids and store links names.
@Suite(
    "halftunes export and import", .timeLimit(.minutes(1)),
    .enabled(if: FFmpeg.available, "needs ffprobe and ffmpeg (apt-get install ffmpeg)"))
struct PlaylistCommandTests {
    @Test("export -o: relative paths every entry of which ffprobe opens, with its duration; import of it fetches nothing new")
    func roundTrip() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let home = folder.appendingPathComponent("home")
                #expect(try await runHalftunes(["download", "1001", "1002"], home: home, catalog: url).status == 0)
                let lists = folder.appendingPathComponent("playlists")
                try FileManager.default.createDirectory(at: lists, withIntermediateDirectories: true)
                let playlist = lists.appendingPathComponent("mine.m3u8")
                let export = try await runHalftunes(["export", "-o", playlist.path], home: home, catalog: url)
                #expect(export.status == 0, "\(export.stderr)")
                let lines = try String(contentsOf: playlist, encoding: .utf8).split(separator: "\n").map(String.init)
                #expect(lines.first == "#EXTM3U")
                let infos = lines.filter { $0.hasPrefix("#EXTINF:") }
                let entries = lines.filter { !$0.hasPrefix("#") }
                #expect(entries.count == 2 && entries.allSatisfy { $0.hasPrefix("../home/library/") }, "\(entries)")
                #expect(infos.contains("#EXTINF:30,The Paper Lanterns - Paper Boats"), "\(infos)")
                for (info, entry) in zip(infos, entries) {
                    let probe = try await FFmpeg.probe(lists.appendingPathComponent(entry))
                    let seconds = Int(info.dropFirst("#EXTINF:".count).prefix { $0 != "," })
                    #expect(Double(probe.duration).map { Int($0.rounded()) } == seconds, "\(entry)")
                }
                let absolute = try await runHalftunes(["export", "--absolute", "1002"], home: home, catalog: url)
                #expect(absolute.stdout.split(separator: "\n").last?.hasPrefix(home.path + "/library/") == true)
                let fetched = catalog.previewRequests.count
                let again = try await runHalftunes(["import", playlist.path], home: home, catalog: url)
                #expect(again.status == 0, "\(again.stderr)")
                #expect(catalog.previewRequests.count == fetched, "nothing fetched again")
            }
        }
    }

    /// Inputs `import` cannot take, each with the line it answers (after the file's path).
    static let unreadable: [(name: String, said: String)] = [
        ("missing.txt", "no such file or directory"), ("a folder", "is a directory"),
        ("random.bin", "not UTF-8 text (an M3U8 playlist, or track ids one a line)"),
        ("/dev/zero", "over 64 MiB, too large for a playlist"),
    ]

    @Test(
        "import of what is not a playlist: one line naming it and why, exit 2, nothing fetched; a byte order mark is no part of the first line",
        arguments: unreadable.indices)
    func unreadableInput(_ index: Int) async throws {
        let (name, said) = Self.unreadable[index]
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let home = folder.appendingPathComponent("home")
                try FileManager.default.createDirectory(
                    at: folder.appendingPathComponent("a folder"), withIntermediateDirectories: true)
                // Random bytes, one of them a byte no UTF-8 text holds.
                var random = SystemRandomNumberGenerator()
                try Data([0xFF] + (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) })
                    .write(to: folder.appendingPathComponent("random.bin"))
                let path = name.hasPrefix("/") ? name : folder.appendingPathComponent(name).path
                let result = try await runHalftunes(["import", path], home: home, catalog: url)
                #expect(result.status == 2)
                #expect(result.stderr == "halftunes: cannot read \(path): \(said)\n")
                #expect(catalog.previewRequests.isEmpty)

                let marked = folder.appendingPathComponent("marked.txt")
                try Data([0xEF, 0xBB, 0xBF] + Array("1003\n".utf8)).write(to: marked)
                let read = try await runHalftunes(["import", marked.path], home: home, catalog: url)
                #expect(read.status == 0, "\(read.stderr)")
                #expect(catalog.previewRequests.map(\.trackId) == [1003])
            }
        }
    }

    @Test("import of ids and store links: a bad line is named (file:line), the rest download, exit 2")
    func badLines() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let home = folder.appendingPathComponent("home")
                let list = folder.appendingPathComponent("list.txt")
                try "1003\nhttps://music.apple.com/us/album/harbour/1?i=1004\nnot a track\n# a comment\n".write(
                    to: list, atomically: true, encoding: .utf8)
                let result = try await runHalftunes(["import", list.path], home: home, catalog: url)
                #expect(result.status == 2)
                #expect(
                    result.stderr
                        == "halftunes: \(list.path):3: \"not a track\" is not a track id, a store link or a file HalfTunes named\n"
                )
                #expect(filesIn(home.appendingPathComponent("library")).filter { $0.hasSuffix(".wav") }.count == 2)
                let missing = try await runHalftunes(["export", "4242"], home: home, catalog: url)
                #expect(missing.status == 3 && missing.stderr == "halftunes: not in the library: 4242\n")
            }
        }
    }
}
