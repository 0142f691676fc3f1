import Foundation
import ITunesSearch
import TestSupport
import Testing

@testable import HalfTunesKit

/// What a player is answered from when it asks for a track at the moment its download completes:
/// the partial file the look named is renamed into the library before it could be opened.
@Suite("Play source: the partial file opened, or the finished file looked up again")
struct PlaySourceTests {
    /// Answers each look with the next document, counting the looks.
    private actor Looks {
        private var documents: [DownloadDocument]
        private(set) var count = 0
        init(_ documents: [DownloadDocument]) { self.documents = documents }
        func next() -> DownloadDocument {
            count += 1
            return documents.removeFirst()
        }
    }

    private func document(_ state: DownloadState, _ file: URL) -> DownloadDocument {
        var document = DownloadDocument(Track(id: 7, name: "Song", artist: "Artist"), status: nil)
        (document.state, document.file) = (state, file.path)
        return document
    }

    private func open(_ looks: Looks) async throws(DownloadError) -> (target: DownloadDocument, partial: OpenedFile?) {
        try await PlaySource.open { () async throws(DownloadError) in await looks.next() }
    }

    private func bytes(_ reader: GrowingFileReader) async throws -> [UInt8] {
        var all: [UInt8] = []
        _ = try await reader.read { all += $0 }
        return all
    }

    @Test("a partial file on disk is opened and read to its end, even once renamed into the library")
    func partialOpened() async throws {
        try await withTemporaryDirectory { folder in
            let (partial, finished) = (folder.appendingPathComponent("Song.m4a.part"), folder.appendingPathComponent("Song.m4a"))
            let body = [UInt8]((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try Data(body).write(to: partial)
            let looks = Looks([document(.downloading, partial)])
            let (target, opened) = try await open(looks)
            #expect(target.state == .downloading)
            let file = try #require(opened)
            #expect(await looks.count == 1)
            try FileManager.default.moveItem(at: partial, to: finished)
            #expect(try await bytes(GrowingFileReader(opened: file) { false }) == body)
        }
    }

    @Test("a partial file gone before it was opened: the track is looked at again and served from the library")
    func completedMeanwhile() async throws {
        try await withTemporaryDirectory { folder in
            let (partial, finished) = (folder.appendingPathComponent("Song.m4a.part"), folder.appendingPathComponent("Song.m4a"))
            try Data([1, 2, 3]).write(to: finished)
            let looks = Looks([document(.downloading, partial), document(.downloaded, finished)])
            let (target, opened) = try await open(looks)
            #expect(await looks.count == 2)
            #expect(target.state == .downloaded)
            #expect(target.file == finished.path)
            #expect(opened == nil, "a library file is opened by its reader")
        }
    }

    @Test("a download started over under a new partial file meanwhile: that one is opened")
    func startedOverMeanwhile() async throws {
        try await withTemporaryDirectory { folder in
            let (gone, fresh) = (folder.appendingPathComponent("Old.m4a.part"), folder.appendingPathComponent("Song.m4a.part"))
            try Data([9, 8]).write(to: fresh)
            let looks = Looks([document(.downloading, gone), document(.downloading, fresh)])
            let (target, opened) = try await open(looks)
            #expect(target.file == fresh.path)
            #expect(try await bytes(GrowingFileReader(opened: try #require(opened)) { false }) == [9, 8])
        }
    }

    @Test("a partial file gone at both looks (the download cancelled) is not found, after two looks and no more")
    func goneTwice() async throws {
        try await withTemporaryDirectory { folder in
            let partial = folder.appendingPathComponent("Song.m4a.part")
            let looks = Looks([document(.downloading, partial), document(.downloading, partial)])
            let error = await #expect(throws: DownloadError.self) { try await open(looks) }
            #expect(error?.code == .notFound)
            #expect(error?.message == "the download's bytes are gone")
            #expect(await looks.count == 2)
        }
    }
}
