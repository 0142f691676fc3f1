import Foundation
import MediaTags
import TestSupport
import Testing

/// Broken containers give a typed error, never a crash or a hang; the writer never touches its input.
struct BadInputTests {
    static let tags = TrackTags(title: "T", artist: "A")

    static func box(_ type: String, size: UInt32? = nil, _ content: [UInt8] = []) -> [UInt8] {
        let length = size ?? UInt32(content.count + 8)
        return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) } + Array(type.utf8) + content
    }

    static let ftyp = box("ftyp", Array("M4A ".utf8) + [0, 0, 0, 0])

    @Test(
        "malformed MP4 structures",
        arguments: [
            ("a box past the end", ftyp + box("moov", size: 4000, [])),
            ("a size smaller than its header", ftyp + box("moov", size: 4, [])),
            ("a 64-bit size cut short", ftyp + [0, 0, 0, 1] + Array("moov".utf8) + [0, 0]),
            ("a 64-bit size past the end", ftyp + [0, 0, 0, 1] + Array("moov".utf8) + [0, 0, 0, 0, 0xFF, 0, 0, 0]),
            ("no moov", ftyp + box("mdat", [1, 2, 3])),
            ("two moovs", ftyp + box("moov") + box("moov")),
            ("a child past its parent", ftyp + box("moov", box("udta", size: 100, []))),
            ("stray bytes", ftyp + box("moov", box("udta") + [1, 2, 3])),
            ("a fragmented file", ftyp + box("moov") + box("moof")),
        ] as [(String, [UInt8])])
    func mp4(_ name: String, bytes: [UInt8]) {
        #expect(throws: MediaTagError.self, "\(name)") { try MediaTagger.tag(bytes, with: Self.tags) }
    }

    @Test("a size-0 box runs to the end of its parent, and a well-formed minimal file is tagged")
    func sizeZero() throws {
        let file =
            Self.ftyp + Self.box("moov", Self.box("mvhd", [UInt8](repeating: 0, count: 100))) + Self.box("mdat", size: 0, [9, 9])
        let (format, tagged) = try MediaTagger.tag(file, with: Self.tags)
        #expect(format == .mp4)
        #expect(tagged.count > file.count)
        #expect(tagged.suffix(10) == file.suffix(10))  // the mdat, still last, as it was
    }

    @Test("a child of size 0 inside moov gets its size written out, so the tags added after it stay outside it")
    func sizeZeroChild() throws {
        // Found by the fuzzer: tagged twice, the second run added another udta.
        let file = Self.ftyp + Self.box("moov", Self.box("mvhd", [1, 2]) + Self.box("junk", size: 0, [7, 7, 7]))
        let (_, once) = try MediaTagger.tag(file, with: Self.tags)
        let (_, twice) = try MediaTagger.tag(once, with: Self.tags)
        #expect(twice == once)
    }

    @Test("deep nesting is not followed: only the boxes on the way to the tags are read")
    func deepNesting() throws {
        var nested = Self.box("trak")
        for _ in 0..<10_000 { nested = Self.box("trak", nested) }
        let file = Self.ftyp + Self.box("moov", nested)
        _ = try MediaTagger.tag(file, with: Self.tags)
    }

    @Test(
        "malformed WAV structures and unknown formats",
        arguments: [
            ("a chunk past the end", Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEdata".utf8) + [0xFF, 0xFF, 0, 0, 1]),
            ("no data chunk", Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8) + [2, 0, 0, 0, 1, 2]),
            ("text", Array("this is not music at all".utf8)),
            ("empty", []),
            ("an HTML error page saved as .m4a", Array("<html><body>404</body></html>".utf8)),
        ] as [(String, [UInt8])])
    func wavAndOthers(_ name: String, bytes: [UInt8]) {
        #expect(throws: MediaTagError.self, "\(name)") { try MediaTagger.tag(bytes, with: Self.tags) }
    }

    @Test("a file that cannot be tagged leaves nothing behind")
    func nothingWritten() async throws {
        try await withTemporaryDirectory { folder in
            let source = folder.appendingPathComponent("page.m4a")
            try Data("<html>not found</html>".utf8).write(to: source)
            let output = folder.appendingPathComponent("out.m4a")
            #expect(throws: MediaTagError.self) { try MediaTagger.tagFile(at: source, writingTo: output, tags: Self.tags) }
            #expect(!FileManager.default.fileExists(atPath: output.path))
            #expect(try Data(contentsOf: source) == Data("<html>not found</html>".utf8))
        }
    }

    @Test("artwork is recognised by its bytes, not its name")
    func artworkMagic() {
        #expect(Artwork(bytes: [0xFF, 0xD8, 0xFF, 0xE0, 1])?.kind == .jpeg)
        #expect(Artwork(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0])?.kind == .png)
        #expect(Artwork(bytes: Array("<svg xmlns=…>".utf8)) == nil)
        #expect(Artwork(bytes: []) == nil)
    }
    static func uint64(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// A file with its `moov` before its `mdat`, whose only track's 64-bit chunk offset table holds `offset`.
    static func moovFirst(chunkOffset offset: UInt64) -> [UInt8] {
        let co64 = box("co64", [0, 0, 0, 0, 0, 0, 0, 1] + uint64(offset))
        let track = box("trak", box("mdia", box("minf", box("stbl", co64))))
        return ftyp + box("moov", box("mvhd", [UInt8](repeating: 0, count: 100)) + track) + box("mdat", [1, 2, 3])
    }

    @Test(
        "a 64-bit chunk offset that moving the audio would carry past Int64 is a malformed file, not a crash",
        arguments: [UInt64(Int64.max) - 5, UInt64(Int64.max), UInt64.max, 1 << 63])
    func co64Overflow(_ offset: UInt64) {
        #expect(throws: MediaTagError.self) { try MediaTagger.tag(Self.moovFirst(chunkOffset: offset), with: Self.tags) }
    }

    @Test("a 64-bit chunk offset inside the file still moves with the audio")
    func co64Moves() throws {
        let file = Self.moovFirst(chunkOffset: 200)
        let (_, tagged) = try MediaTagger.tag(file, with: Self.tags)
        let at = try #require(tagged.indices.dropLast(20).first { tagged[$0..<$0 + 4].elementsEqual("co64".utf8) })
        let moved = tagged[(at + 12)..<(at + 20)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(moved == 200 + UInt64(tagged.count - file.count))
    }

    @Test(
        "a file whose boxes claim sizes past what a file can hold has no duration, and reading it ends",
        arguments: [UInt64(1) << 63, UInt64.max, UInt64(Int64.max)])
    func durationOfHugeBoxes(_ size: UInt64) async throws {
        try await withTemporaryDirectory { folder in
            // The first box (ftyp itself, as a 64-bit size) and, in a second file, the one after it.
            let first = [0, 0, 0, 1] + Array("ftyp".utf8) + Self.uint64(size) + Array("M4A ".utf8)
            let second = Self.ftyp + [0, 0, 0, 1] + Array("free".utf8) + Self.uint64(size)
            for (name, bytes) in [("first.m4a", first), ("second.m4a", second)] {
                let file = folder.appendingPathComponent(name)
                try Data(bytes).write(to: file)
                #expect(MediaDuration.seconds(ofFileAt: file.path) == nil, "\(name)")
                #expect(MediaDuration.seconds(of: bytes) == nil, "\(name)")
            }
        }
    }
}
