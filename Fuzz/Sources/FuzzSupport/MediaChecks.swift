import Foundation
import MediaTags

/// What every media fuzzer asks of a file's bytes: tagging answers with a typed error or a file
/// that, tagged again, comes out the same; the duration, read from the bytes and from a file
/// holding them, is a finite number of seconds or nothing, the same both ways when both answer;
/// tagging keeps the duration.
public enum MediaChecks {
    static let tags = TrackTags(
        title: "Tïtle / \"x\" & y", artist: "Artist", album: "Album", genre: "Pop", date: "2020",
        trackNumber: TrackNumber(1, of: 2), cover: Artwork(bytes: [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]))

    /// A file of this process's own, rewritten for each input.
    static let path = FileManager.default.temporaryDirectory.appendingPathComponent("halftunes-fuzz-\(getpid())").path

    public static func check(_ bytes: [UInt8]) {
        let seconds = MediaDuration.seconds(of: bytes)
        if let seconds { expect(seconds.isFinite && seconds >= 0, "a duration of \(seconds) s") }
        expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot write \(path)")
        let fromFile = MediaDuration.seconds(ofFileAt: path)
        if let fromFile { expect(fromFile.isFinite && fromFile >= 0, "a duration of \(fromFile) s") }
        if let seconds, let fromFile, MediaFormat.detect(bytes) == .mp4 {
            expect(seconds == fromFile, "the file says \(fromFile) s, its bytes \(seconds) s")
        }
        guard let (format, once) = try? MediaTagger.tag(bytes, with: tags) else { return }
        do {
            let (_, twice) = try MediaTagger.tag(once, with: tags)
            expect(twice == once, "tagging a tagged file again changed it")
        } catch {
            expect(false, "a file the writer made cannot be tagged again: \(error)")
        }
        if format == .mp4, let seconds {
            expect(MediaDuration.seconds(of: once) == seconds, "tagging changed the duration")
        }
    }
}
