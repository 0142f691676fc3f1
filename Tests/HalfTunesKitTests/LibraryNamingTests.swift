import Foundation
import ITunesSearch
import Testing

@testable import HalfTunesKit
@testable import HalfTunesTerminal

@Suite("Library file names (pure)")
struct LibraryNamingTests {
    private func name(artist: String, title: String, id: Int = 42, ext: String = "m4a") -> String {
        LibraryNaming.fileName(for: Track(id: id, name: title, artist: artist), fileExtension: ext)
    }

    @Test("Artist - Title [id].ext")
    func plain() {
        #expect(name(artist: "Jessie J", title: "Price Tag") == "Jessie J - Price Tag [42].m4a")
        #expect(name(artist: "さくらバンド", title: "ラブソング 💖") == "さくらバンド - ラブソング 💖 [42].m4a")
        #expect(name(artist: "Static Orchard", title: "Wait...") == "Static Orchard - Wait… [42].m4a")
    }

    @Test("the one-pass check takes only names the full pass would leave as they are")
    func quickCheckAgreesWithTheFullPass() {
        // Every string of up to 4 characters from an alphabet of the cases that matter.
        let alphabet: [String] = ["a", "Z", "9", " ", ".", "/", "\\", "-", "\u{7F}", "\t", "é", "…", "\u{202E}"]
        var strings: [String] = [""]
        var frontier: [String] = [""]
        for _ in 1...4 {
            frontier = frontier.flatMap { prefix in alphabet.map { prefix + $0 } }
            strings += frontier
        }
        for text in strings where LibraryNaming.isClean(text) {
            #expect(LibraryNaming.cleanFully(text) == text, "\(text.debugDescription)")
        }
        for text in strings { #expect(LibraryNaming.clean(text) == LibraryNaming.cleanFully(text)) }
        // It does take plain names: letters, digits, dashes, single spaces, single dots inside.
        for text in ["a", "Z9-a", "a b", "a.b", "Jessie J - Price Tag (feat. B.o.B)"] {
            #expect(LibraryNaming.isClean(text), "\(text)")
        }
    }

    @Test(
        "hostile names cannot escape the folder or hide the extension",
        arguments: [
            ("../../etc", "passwd"), ("/", "/"), ("a\u{0}b", "c\u{0}d"), (".hidden", "..."), ("x\u{202E}4pm", "evil\u{202E}exe."),
            ("line\nbreak", "tab\there"), ("back\\slash", "..\\..\\x"),
        ])
    func hostile(artist: String, title: String) {
        let result = name(artist: artist, title: title)
        #expect(!result.contains("/"))
        #expect(!result.contains("\\"))
        #expect(!result.contains("\u{0}"))
        #expect(!result.hasPrefix("."))
        #expect(!result.contains(".."))
        #expect(
            !result.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) || $0.properties.generalCategory == .control })
        #expect(result.hasSuffix(" [42].m4a"))
        #expect(URL(fileURLWithPath: "/library").appendingPathComponent(result).standardizedFileURL.path.hasPrefix("/library/"))
    }

    @Test("long names are cut to 200 bytes, keeping the id and extension, on a character boundary")
    func long() {
        let result = name(
            artist: String(repeating: "ä", count: 300), title: String(repeating: "🎉", count: 300), id: 1_234_567_890)
        #expect(result.utf8.count <= 200)
        #expect(result.hasSuffix(" [1234567890].m4a"))
        #expect(String(validating: Array(result.utf8), as: UTF8.self) != nil)
    }

    @Test("the extension comes from the preview URL's path, else the Content-Type, else m4a")
    func extensions() {
        let itunes = URL(string: "https://audio-ssl.itunes.apple.com/x/mzaf_1.plus.aac.p.m4a?accessKey=abc")
        #expect(LibraryNaming.fileExtension(previewURL: itunes) == "m4a")
        #expect(LibraryNaming.fileExtension(previewURL: URL(string: "http://h/previews/1.wav")) == "wav")
        #expect(LibraryNaming.fileExtension(previewURL: URL(string: "http://h/stream"), contentType: "audio/mpeg") == "mp3")
        #expect(LibraryNaming.fileExtension(previewURL: URL(string: "http://h/x.php"), contentType: "audio/x-wav; x=1") == "wav")
        #expect(LibraryNaming.fileExtension(previewURL: URL(string: "http://h/x"), contentType: "text/html") == "m4a")
        #expect(name(artist: "a", title: "b", ext: "../sh") == "a - b [42].sh")
    }

    @Test("a path's plain extension and file name, read as text, are what URL gives; other shapes are left to URL")
    func extensionsReadAsText() throws {
        let paths = [
            "/music/Bench - Track 1 [400001].m4a", "/a/b.M4A", "/a/b.tar.gz", "/a/b.", "/a/.hidden", "/a/noext", "/a/b..m4a",
            "/a/b.m 4a", "/a/ä ö.wav", "/a.b/c", "/a/b.mp3x1", "/x.%41", "/a/b%2Ec", "/a/..m4a", "/a/.a.m4a", "/a/b.é",
        ]
        for path in paths {
            let url = URL(filePath: path, directoryHint: .notDirectory)
            let read = LibraryNaming.plainExtension(ofPath: path)
            #expect(read == nil || read == url.pathExtension, "\(path): \(read ?? "nil") against \(url.pathExtension)")
            #expect(LibraryNaming.fileName(ofPath: path) == url.lastPathComponent, "\(path)")
        }
        // Plain names are read as text (nil would leave every file to URL's decoding).
        #expect(LibraryNaming.plainExtension(ofPath: "/music/Bench - Track 1 [400001].m4a") == "m4a")
        #expect(LibraryNaming.plainExtension(ofPath: "/a/noext") == nil)
        let previews = [
            "https://audio-ssl.itunes.apple.com/x/mzaf_1.plus.aac.p.m4a?accessKey=abc", "http://h/a%20b.wav",
            "http://h/x.%6D4a", "http://h/dir/", "http://h", "http://h/x.php#frag.mp3", "http://h/ü.MP3",
        ]
        for text in previews {
            let url = try #require(URL(string: text))
            let read = LibraryNaming.plainExtension(ofPath: url.path(percentEncoded: true))
            #expect(read == nil || read == url.pathExtension, "\(text): \(read ?? "nil") against \(url.pathExtension)")
        }
    }

    @Test("the id is read back from a library file name")
    func trackID() {
        #expect(LibraryNaming.trackID(inFileName: "A - B [1001].wav") == 1001)
        #expect(LibraryNaming.trackID(inFileName: "A [x] - B [7].m4a") == 7)
        #expect(LibraryNaming.trackID(inFileName: "nothing.m4a") == nil)
    }
}

@Suite("Progress text (pure)")
struct ProgressTextTests {
    @Test("sizes and percentages as the tutorial shows them")
    func text() {
        #expect(ProgressText.bytes(999) == "999 bytes")
        #expect(ProgressText.bytes(1_100_000) == "1.1 MB")
        #expect(ProgressText.bytes(1_323_044) == "1.3 MB")
        #expect(ProgressText.bytes(2_500_000_000) == "2.5 GB")
        #expect(ProgressText.progress(received: 135_300, expected: 1_100_000) == "12.3% of 1.1 MB")
        #expect(ProgressText.progress(received: 1_100_000, expected: 1_100_000) == "100.0% of 1.1 MB")
        #expect(ProgressText.progress(received: 456_700, expected: nil) == "456.7 KB")
        #expect(ProgressText.rate(bytesPerSecond: 3_200_000) == "3.2 MB/s")
    }

    @Test("a wait before a retry: tenths under 10 s, whole seconds (rounded up) to 2 min, then minutes")
    func wait() {
        #expect(ProgressText.wait(.milliseconds(370)) == "0.4 s")
        #expect(ProgressText.wait(.seconds(1)) == "1.0 s")
        #expect(ProgressText.wait(.milliseconds(9_940)) == "9.9 s")
        #expect(ProgressText.wait(.milliseconds(10_200)) == "11 s")
        #expect(ProgressText.wait(.seconds(119)) == "119 s")
        #expect(ProgressText.wait(.seconds(125)) == "2 min 5 s")
    }
}
