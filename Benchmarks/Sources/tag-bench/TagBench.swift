import Foundation
import HalfTunesKit
import ITunesSearch
import Logging
import MediaTags

/// `tag-bench tag FILE COVER ROUNDS`: tags one file in memory ROUNDS times (and through the file
/// API once per round) and prints the median and 90th percentile, in milliseconds.
///
/// `tag-bench batch PREVIEWS-URL ARTWORK-URL COUNT HOME tags|no-artwork|no-tags`: downloads COUNT
/// previews (`PREVIEWS/p/N.m4a`, artwork `ARTWORK/img/N/100x100bb.jpg`) with the app's download
/// service, tagging as told, and prints the seconds it took.
@main
struct TagBench {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "tag" where arguments.count == 4: try tag(arguments[1], cover: arguments[2], rounds: Int(arguments[3]) ?? 100)
        case "batch" where arguments.count == 6:
            try await batch(
                previews: arguments[1], artwork: arguments[2], count: Int(arguments[3]) ?? 200, home: arguments[4],
                mode: arguments[5])
        default:
            FileHandle.standardError.write(
                Data("usage: tag-bench tag FILE COVER ROUNDS | batch PREVIEWS-URL ARTWORK-URL COUNT HOME MODE\n".utf8))
            exit(2)
        }
    }

    static func tag(_ path: String, cover: String, rounds: Int) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let tags = TrackTags(
            title: "Love in the Harbour", artist: "The Paper Lanterns", album: "Harbour Lights", genre: "Pop", date: "2019-05-10",
            trackNumber: TrackNumber(1, of: 10), cover: Artwork(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: cover)))))
        var memory: [Double] = []
        var files: [Double] = []
        let output = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("tag-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: output) }
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            _ = try MediaTagger.tag(bytes, with: tags)
            memory.append(milliseconds(ContinuousClock.now - start))
            let fileStart = ContinuousClock.now
            try MediaTagger.tagFile(at: URL(fileURLWithPath: path), writingTo: output, tags: tags)
            files.append(milliseconds(ContinuousClock.now - fileStart))
        }
        print(
            #"{"bytes":\#(bytes.count),"medianMs":\#(percentile(memory, 0.5)),"p90Ms":\#(percentile(memory, 0.9)),"#
                + #""fileMedianMs":\#(percentile(files, 0.5))}"#)
    }

    static func batch(previews: String, artwork: String, count: Int, home: String, mode: String) async throws {
        var logger = Logger(label: "tag-bench")
        logger.logLevel = .error
        let tagging: TaggingOptions =
            switch mode {
            case "no-tags": .off
            case "no-artwork": TaggingOptions(writesTags: true, fetchesArtwork: false)
            default: TaggingOptions()
            }
        let tracks = (1...count).map { n in
            Track(
                id: n, name: "Track \(n)", artist: "Bench Artist", album: "Album \(n)",
                artworkURL: URL(string: "\(artwork)/img/\(n)/100x100bb.jpg"), previewURL: URL(string: "\(previews)/p/\(n).m4a"),
                genre: "Pop", releaseDate: Date(timeIntervalSince1970: 1_557_471_600), trackNumber: 1, trackCount: 1)
        }
        let service = try await DownloadService.open(
            home: HalfTunesHome(root: URL(fileURLWithPath: home)), tagging: tagging, logger: logger)
        let events = service.events()
        let start = ContinuousClock.now
        try await service.download(tracks)
        var done = 0
        for await event in events {
            if case .completed = event { done += 1 }
            if case .failed(let id, let reason) = event { throw BenchFailure(message: "track \(id): \(reason)") }
            if done == count { break }
        }
        let seconds = milliseconds(ContinuousClock.now - start) / 1000
        await service.close()
        print(#"{"mode":"\#(mode)","files":\#(count),"seconds":\#(seconds)}"#)
    }

    struct BenchFailure: Error { let message: String }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
    }
}
