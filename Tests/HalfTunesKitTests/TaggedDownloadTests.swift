import Foundation
import Hummingbird
import ITunesSearch
import Synchronization
import TestSupport
import Testing

@testable import HalfTunesKit

/// Downloads become tagged music files: real previews' shapes (../shared/fixtures/media) from a
/// local server, tags and covers read back by ffprobe, audio compared by ffmpeg.
@Suite(
    "Tagged downloads", .timeLimit(.minutes(1)),
    .enabled(if: MediaFixtures.available, "../shared/fixtures/media (the media fixtures beside the checkout) is absent"),
    .enabled(if: FFmpeg.available, "needs ffprobe and ffmpeg (apt-get install ffmpeg)"))
struct TaggedDownloadTests {
    /// A store: previews of every shape, artwork in both renditions, counted requests.
    final class Store: Sendable {
        let artworkRequests = Mutex<[String]>([])
        static let notAContainer = Data("<html><body>Preview unavailable</body></html>".utf8)
        /// An MP3's first bytes (an ID3v2 header): a format no tags are written into.
        static let mp3 = Data([0x49, 0x44, 0x33, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]) + Data(count: 4096)

        func router() throws -> Router<BasicRequestContext> {
            let router = Router()
            let files: [String: Data] = [
                "first.m4a": try Data(contentsOf: MediaFixtures.url("preview-moov-first.m4a")),
                "last.m4a": try Data(contentsOf: MediaFixtures.url("preview-moov-last.m4a")),
                "tagged.m4a": try Data(contentsOf: MediaFixtures.url("preview-already-tagged.m4a")),
                "page.m4a": Self.notAContainer,
                "song.mp3": Self.mp3,
            ]
            let images: [String: Data] = [
                "/img/a/600x600bb.jpg": try Data(contentsOf: MediaFixtures.url("artwork-600.jpg")),
                "/img/b/100x100bb.png": try Data(contentsOf: MediaFixtures.url("artwork-100.png")),
                "/img/d/600x600bb.jpg": Data("not an image".utf8),
                // A "JPEG" past the 5 MiB limit.
                "/img/e/600x600bb.jpg": Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(count: 6 << 20),
            ]
            router.get("/previews/:name") { _, context in
                guard let data = files[context.parameters.get("name") ?? ""] else { return Response(status: .notFound) }
                return Response(
                    status: .ok, headers: [.contentType: "audio/mp4"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
            }
            router.get("/img/**") { request, _ in
                self.artworkRequests.withLock { $0.append(request.uri.path) }
                guard let data = images[request.uri.path] else { return Response(status: .notFound) }
                return Response(
                    status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
            }
            return router
        }
    }

    static func track(_ id: Int, _ preview: String, artwork: String?, base: URL) -> Track {
        Track(
            id: id, name: "Caf\u{E9} / \"Nights\" & Days \(id)", artist: "Zo\u{EB} & the Slashes/Backslashes",
            album: "Album \u{2116}\(id)",
            artworkURL: artwork.map { base.appendingPathComponent($0) }, durationMs: 30_000,
            previewURL: base.appendingPathComponent("previews/\(preview)"), genre: "Singer/Songwriter",
            releaseDate: Date(timeIntervalSince1970: 1_557_471_600),  // 2019-05-10
            storeURL: URL(string: "https://music.apple.com/us/album/x/1?i=\(id)"), trackNumber: id, trackCount: 12)
    }

    @Test("M4A of every shape is tagged with its cover; the audio is the server's; a non-container stays as sent, with a warning")
    func tagged() async throws {
        let store = Store()
        try await withTestServer(try store.router()) { base in
            try await withTemporaryDirectory { folder in
                let tracks = [
                    Self.track(1, "first.m4a", artwork: "img/a/100x100bb.jpg", base: base),  // the 600 rendition exists
                    Self.track(2, "last.m4a", artwork: "img/b/100x100bb.png", base: base),  // only the original
                    Self.track(3, "tagged.m4a", artwork: "img/c/100x100bb.jpg", base: base),  // no artwork at all
                    Self.track(4, "page.m4a", artwork: "img/a/100x100bb.jpg", base: base),  // same cover as 1: fetched once
                    Self.track(5, "first.m4a", artwork: "img/d/100x100bb.jpg", base: base),  // "artwork" that is not an image
                    Self.track(6, "last.m4a", artwork: "img/e/100x100bb.jpg", base: base),  // a cover past 5 MiB
                ]
                let service = try await DownloadService.open(home: HalfTunesHome(root: folder), logger: quietLogger("d"))
                let events = service.events()
                try await service.download(tracks)
                var completed: [Int: (file: URL, warning: String?)] = [:]
                for await event in events {
                    if case .completed(let id, let file, let warning) = event { completed[id] = (file, warning) }
                    if case .failed(let id, let reason) = event { Issue.record("track \(id) failed: \(reason)") }
                    if completed.count == tracks.count { break }
                }
                #expect(completed.count == tracks.count)

                let sources = [
                    1: "preview-moov-first.m4a", 2: "preview-moov-last.m4a", 3: "preview-already-tagged.m4a",
                    5: "preview-moov-first.m4a", 6: "preview-moov-last.m4a",
                ]
                for (id, source) in sources.sorted(by: { $0.key < $1.key }) {
                    let file = try #require(completed[id]?.file)
                    #expect(completed[id]?.warning == nil)
                    let probe = try await FFmpeg.probe(file)
                    let track = tracks[id - 1]
                    #expect(probe.tags["title"] == track.name)
                    #expect(probe.tags["artist"] == track.artist)
                    #expect(probe.tags["album"] == track.album)
                    #expect(probe.tags["genre"] == "Singer/Songwriter")
                    #expect(probe.tags["date"] == "2019-05-10")
                    #expect(probe.tags["track"] == "\(id)/12")
                    let original = MediaFixtures.url(source)
                    #expect(
                        try await FFmpeg.audioMD5(file) == (try await FFmpeg.audioMD5(original)), "track \(id)'s audio changed")
                    #expect(probe.duration == (try await FFmpeg.probe(original)).duration)
                    let expectedCover: (String, Int)? = [1: ("mjpeg", 600), 2: ("png", 100)][id]
                    #expect(
                        probe.pictures.map { "\($0.codec) \($0.width)" } == (expectedCover.map { ["\($0.0) \($0.1)"] } ?? []),
                        "track \(id)")
                }
                // Not a container: kept byte for byte as the server sent it, with the reason.
                let page = try #require(completed[4])
                #expect(try Data(contentsOf: page.file) == Store.notAContainer)
                #expect(page.warning?.contains("without tags") == true)
                let listed = try service.libraryListing(.all).library.first { $0.id == 4 }
                #expect(listed?.warning == page.warning)
                #expect(listed?.storeURL == tracks[3].storeURL)
                // One fetch per artwork URL and rendition; the 600 rendition asked first.
                let requests = store.artworkRequests.withLock { $0 }
                #expect(requests.filter { $0 == "/img/a/600x600bb.jpg" }.count == 1)
                #expect(!requests.contains("/img/a/100x100bb.jpg"))
                #expect(requests.contains("/img/b/600x600bb.png") && requests.contains("/img/b/100x100bb.png"))
                #expect(
                    filesIn(folder.appendingPathComponent("library")).allSatisfy {
                        !$0.hasSuffix(".part") && !$0.hasSuffix(".finishing")
                    })
                await service.close()
            }
        }
    }

    @Test("no cover is fetched for a preview that cannot be tagged (an .mp3), while one that can gets its own")
    func noCoverForUntaggable() async throws {
        let store = Store()
        try await withTestServer(try store.router()) { base in
            try await withTemporaryDirectory { folder in
                let tracks = [
                    Self.track(7, "song.mp3", artwork: "img/f/100x100bb.jpg", base: base),
                    Self.track(8, "first.m4a", artwork: "img/a/100x100bb.jpg", base: base),
                ]
                let service = try await DownloadService.open(home: HalfTunesHome(root: folder), logger: quietLogger("d"))
                let events = service.events()
                try await service.download(tracks)
                var completed: [Int: String?] = [:]
                for await event in events {
                    if case .completed(let id, _, let warning) = event { completed[id] = warning }
                    if completed.count == tracks.count { break }
                }
                #expect(completed[7]??.contains("without tags") == true)
                #expect(completed[8] == .some(nil))
                let requests = store.artworkRequests.withLock { $0 }
                #expect(!requests.contains { $0.hasPrefix("/img/f/") }, "\(requests)")
                #expect(requests.contains("/img/a/600x600bb.jpg"))
                await service.close()
            }
        }
    }

    @Test("the store's large rendition of an artwork URL")
    func largeRendition() {
        let url = { (text: String) in ArtworkFetcher.largeRendition(of: URL(string: text)!)?.absoluteString }
        #expect(
            url("https://is1.mzstatic.com/image/thumb/Music/v4/ab/cd/x.jpg/100x100bb.jpg")
                == "https://is1.mzstatic.com/image/thumb/Music/v4/ab/cd/x.jpg/600x600bb.jpg")
        #expect(url("https://e.com/a/60x60bb.png") == "https://e.com/a/600x600bb.png")
        #expect(url("https://e.com/a/600x600bb.jpg") == nil)
        #expect(url("https://e.com/a/cover.jpg") == nil)
        #expect(url("https://e.com/a/100x100bb.svg") == nil)
    }
}
