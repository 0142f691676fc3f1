import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `--no-tags` keeps files as the server sent them; `halftunes tag` tags them afterwards.
@Suite(
    "halftunes tag and --no-tags", .timeLimit(.minutes(1)),
    .enabled(if: FFmpeg.available, "needs ffprobe (apt-get install ffmpeg)"))
struct TagCommandTests {
    private func halftunes(_ arguments: [String], home: URL, catalog: URL, environment: [String: String] = [:]) async throws
        -> ChildProcess.Result
    {
        try await ChildProcess.run(
            try BuiltProducts.halftunes, arguments,
            environment: ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": catalog.absoluteString].merging(environment) { $1 })
    }

    @Test(
        "download --no-tags (and HALFTUNES_NO_TAGS=1) leave the server's bytes; tag writes the catalog's tags in, audio unchanged"
    )
    func noTagsThenTag() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                let plain = try await halftunes(["download", "1001", "--no-tags", "--json"], home: home, catalog: url)
                #expect(plain.status == 0, "\(plain.stderr)")
                let byEnvironment = try await halftunes(
                    ["download", "1002", "--json"], home: home, catalog: url, environment: ["HALFTUNES_NO_TAGS": "1"])
                #expect(byEnvironment.status == 0, "\(byEnvironment.stderr)")
                let library = home.appendingPathComponent("library")
                let files = [1001, 1002].map { id in
                    library.appendingPathComponent(filesIn(library).first { $0.contains("[\(id)]") } ?? "")
                }
                for (id, file) in zip([1001, 1002], files) {
                    #expect(
                        sha256Hex(try Data(contentsOf: file)) == sha256Hex(await catalog.preview(for: id)!.data), "track \(id)")
                    #expect(try await FFmpeg.probe(file).tags["title"] == nil)
                }

                let tag = try await halftunes(["tag"], home: home, catalog: url)
                #expect(tag.status == 0, "\(tag.stderr)")
                #expect(tag.stdout.components(separatedBy: ": tagged\n").count == 3, "\(tag.stdout)")
                for (id, file) in zip([1001, 1002], files) {
                    let track = try #require(catalog.track(id: id))
                    let probe = try await FFmpeg.probe(file)
                    #expect(probe.tags["title"] == track.name)
                    #expect(probe.tags["artist"] == track.artist)
                    #expect(probe.tags["album"] == track.album)
                    #expect(probe.tags["genre"] == track.genre)
                    #expect(probe.tags["date"] == String(track.releaseDate.prefix(10)))
                    #expect(
                        WAVAudio.audioHash(try Data(contentsOf: file)) == WAVAudio.audioHash(await catalog.preview(for: id)!.data)
                    )
                }
                // The library keeps its order (most recent first) and knows the new sizes.
                let list = try await halftunes(["list", "--json"], home: home, catalog: url)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
                let items = try #require(object["library"] as? [[String: Any]])
                #expect(items.compactMap { $0["id"] as? Int } == [1002, 1001])
                for (item, file) in zip(items, files.reversed()) {
                    let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int
                    #expect(item["receivedBytes"] as? Int == size)
                }

                let unknown = try await halftunes(["tag", "4242"], home: home, catalog: url)
                #expect(unknown.status != 0)
                #expect(unknown.stderr.contains("not in the library"))
            }
        }
    }
}
