import DemoCatalog
import Foundation
import MediaTags
import TestSupport
import Testing

/// Tags written by MediaTags, read back by ffprobe (Debian's ffmpeg), never by our own parser.
@Suite(
    .enabled(if: MediaFixtures.available, "../shared/fixtures/media (the media fixtures beside the checkout) is absent"),
    .enabled(if: FFmpeg.available, "needs ffprobe and ffmpeg (apt-get install ffmpeg)"))
struct TagWritingTests {
    /// Names with what breaks naive writers: non-ASCII, quotes, a slash, an ampersand.
    static let tags = TrackTags(
        title: "Žluťoučký kůň / \"Live\" & ÉTÉ", artist: "Beyoncé & Jay-Z / 周杰倫", album: "Album's \"Best\" / Vol. 2",
        genre: "R&B/Soul", date: "2019-05-10", trackNumber: TrackNumber(3, of: 12))

    static func cover(_ name: String) throws -> Artwork {
        try #require(Artwork(bytes: Array(try Data(contentsOf: MediaFixtures.url(name)))))
    }

    /// The text tags, as ffprobe reads them back, are the ones written.
    static func expectTextTags(_ probe: FFmpeg.Probe, _ tags: TrackTags, sourceLocation: SourceLocation = #_sourceLocation) {
        for (key, value) in [
            ("title", tags.title), ("artist", tags.artist), ("album", tags.album), ("genre", tags.genre), ("date", tags.date),
        ] {
            #expect(probe.tags[key] == value, "\(key)", sourceLocation: sourceLocation)
        }
    }

    @Test(
        "every shape of preview gets its tags and cover; the audio and duration stay the same",
        arguments: [
            ("preview-moov-first.m4a", "artwork-600.jpg"), ("preview-moov-last.m4a", "artwork-100.png"),
            ("preview-already-tagged.m4a", "artwork-600.jpg"),
        ])
    func m4a(file: String, artwork: String) async throws {
        try await withTemporaryDirectory { folder in
            let source = MediaFixtures.url(file)
            let output = folder.appendingPathComponent("tagged.m4a")
            var tags = Self.tags
            tags.cover = try Self.cover(artwork)
            let format = try MediaTagger.tagFile(at: source, writingTo: output, tags: tags)
            #expect(format == .mp4)

            let before = try await FFmpeg.probe(source)
            let after = try await FFmpeg.probe(output)
            Self.expectTextTags(after, tags)
            #expect(after.tags["track"] == "3/12")
            let size = artwork == "artwork-600.jpg" ? 600 : 100
            #expect(after.pictures.count == 1)
            #expect(after.pictures.first?.codec == (artwork.hasSuffix("jpg") ? "mjpeg" : "png"))
            #expect(after.pictures.first?.width == size && after.pictures.first?.height == size)
            #expect(after.duration == before.duration)
            #expect(after.audioCodecs == ["aac"])
            #expect(try await FFmpeg.audioMD5(output) == (try await FFmpeg.audioMD5(source)))
            if file == "preview-already-tagged.m4a" {
                // Replaced, not duplicated; the comment the file had is kept.
                #expect(before.tags["title"] == "Old Title")
                #expect(after.tags["comment"] == "kept?")
            }
        }
    }

    @Test("tagging twice replaces: the file grows by nothing the second time")
    func idempotent() async throws {
        var tags = Self.tags
        tags.cover = try Self.cover("artwork-600.jpg")
        let source = Array(try Data(contentsOf: MediaFixtures.url("preview-moov-first.m4a")))
        let (_, once) = try MediaTagger.tag(source, with: tags)
        let (_, twice) = try MediaTagger.tag(once, with: tags)
        #expect(once.count > source.count)
        #expect(twice == once)
    }

    @Test("a WAV preview (the DemoCatalog's) gets LIST/INFO and an ID3 cover; its samples stay the same")
    func wav() async throws {
        try await withTemporaryDirectory { folder in
            let source = folder.appendingPathComponent("demo.wav")
            try await PreviewSynthesizer(seconds: 2).preview(trackId: 7).write(to: source)
            let output = folder.appendingPathComponent("tagged.wav")
            var tags = Self.tags
            tags.cover = try Self.cover("artwork-100.png")
            #expect(try MediaTagger.tagFile(at: source, writingTo: output, tags: tags) == .wav)

            let before = try await FFmpeg.probe(source)
            let after = try await FFmpeg.probe(output)
            Self.expectTextTags(after, tags)
            #expect(after.pictures.count == 1)
            #expect(after.pictures.first?.codec == "png" && after.pictures.first?.width == 100)
            #expect(after.duration == before.duration)
            #expect(try await FFmpeg.audioMD5(output) == (try await FFmpeg.audioMD5(source)))
        }
    }
    /// The top-level chunk ids of a RIFF file, in order (a `LIST` as `LIST/` and its list type).
    static func riffChunks(_ bytes: [UInt8]) -> [String] {
        var chunks: [String] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size =
                Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            let kind =
                id == "LIST" && offset + 12 <= bytes.count
                ? "/" + String(decoding: bytes[offset + 8..<offset + 12], as: UTF8.self) : ""
            chunks.append(id + kind)
            offset += 8 + size + (size & 1)
        }
        return chunks
    }

    @Test("a WAV tagged a second time with other tags keeps one LIST/INFO and one id3 chunk, with the new values")
    func wavRetagged() async throws {
        try await withTemporaryDirectory { folder in
            let source = folder.appendingPathComponent("demo.wav")
            try await PreviewSynthesizer(seconds: 2).preview(trackId: 9).write(to: source)
            var first = Self.tags
            first.cover = try Self.cover("artwork-600.jpg")
            let once = folder.appendingPathComponent("once.wav")
            #expect(try MediaTagger.tagFile(at: source, writingTo: once, tags: first) == .wav)
            var second = TrackTags(
                title: "Second Title", artist: "Second Artist", album: "Second Album", genre: "Jazz", date: "2001-02-03",
                trackNumber: TrackNumber(7, of: 9))
            second.cover = try Self.cover("artwork-100.png")
            let twice = folder.appendingPathComponent("twice.wav")
            #expect(try MediaTagger.tagFile(at: once, writingTo: twice, tags: second) == .wav)

            let chunks = Self.riffChunks(Array(try Data(contentsOf: twice)))
            #expect(chunks.filter { $0 == "LIST/INFO" }.count == 1, "\(chunks)")
            #expect(chunks.filter { $0.lowercased() == "id3 " }.count == 1, "\(chunks)")
            #expect(chunks.contains("fmt ") && chunks.contains("data"), "\(chunks)")
            let probe = try await FFmpeg.probe(twice)
            Self.expectTextTags(probe, second)
            #expect(probe.pictures.count == 1)
            #expect(probe.pictures.first?.codec == "png" && probe.pictures.first?.width == 100)
            #expect(try await FFmpeg.audioMD5(twice) == (try await FFmpeg.audioMD5(source)))
            // The same tags again change nothing.
            let thrice = folder.appendingPathComponent("thrice.wav")
            _ = try MediaTagger.tagFile(at: twice, writingTo: thrice, tags: second)
            #expect(try Data(contentsOf: thrice) == (try Data(contentsOf: twice)))
        }
    }

    @Test("an M4A tagged a second time with other tags has the new values and one cover, its audio unchanged")
    func m4aRetagged() async throws {
        try await withTemporaryDirectory { folder in
            let source = MediaFixtures.url("preview-moov-first.m4a")
            var first = Self.tags
            first.cover = try Self.cover("artwork-600.jpg")
            let once = folder.appendingPathComponent("once.m4a")
            _ = try MediaTagger.tagFile(at: source, writingTo: once, tags: first)
            var second = TrackTags(
                title: "Second Title", artist: "Second Artist", album: "Second Album", genre: "Jazz", date: "2001-02-03",
                trackNumber: TrackNumber(7, of: 9))
            second.cover = try Self.cover("artwork-100.png")
            let twice = folder.appendingPathComponent("twice.m4a")
            _ = try MediaTagger.tagFile(at: once, writingTo: twice, tags: second)
            let probe = try await FFmpeg.probe(twice)
            Self.expectTextTags(probe, second)
            #expect(probe.tags["track"] == "7/9")
            #expect(probe.pictures.count == 1)
            #expect(probe.pictures.first?.codec == "png" && probe.pictures.first?.width == 100)
            #expect(try await FFmpeg.audioMD5(twice) == (try await FFmpeg.audioMD5(source)))
        }
    }
}
