import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import TransferEngine

/// The last step of a download (a finisher) runs on the complete file before it goes into place;
/// stopped in the middle, it is done again on the next open, without fetching the bytes again.
@Suite("Finishers", .timeLimit(.minutes(1)))
struct FinisherTests {
    static let mark = Data("finished".utf8)

    /// Appends a mark to a copy of the file: what "tagging" means here.
    static let marking: TransferFinisher = { download in
        guard var bytes = try? Data(contentsOf: download.file) else { return false }
        bytes.append(FinisherTests.mark)
        return (try? bytes.write(to: download.replacement)) != nil
    }

    /// Downloads `track` with a finisher still at work when the session closes: what a crash
    /// while finishing leaves (the complete partial file, no finished one).
    static func stopWhileFinishing(_ track: Int, from url: URL, to destination: URL, in folder: URL) async throws {
        let (entered, enter) = AsyncStream<Void>.makeStream()
        let stuck = TransferSessionConfiguration(finisher: { _ in
            enter.yield()
            try? await Task.sleep(for: .seconds(3600))
            return false
        })
        try await withSession(stuck, folder: folder) { session, _ in
            _ = try await session.start(url: previewURL(url, track), destination: destination)
            var iterator = entered.makeAsyncIterator()
            await iterator.next()
        }
    }

    @Test("the finished version goes into place; the partial file and the scratch file are gone")
    func finishes() async throws {
        try await withDemoCatalog { catalog, url in
            let source = await catalog.preview(for: 1005)!.data
            try await withSession(TransferSessionConfiguration(finisher: Self.marking)) { session, folder in
                let destination = folder.appendingPathComponent("files/song.wav")
                let id = try await session.start(url: previewURL(url, 1005), destination: destination)
                let done = try await session.wait(for: id)
                #expect(done.state == .completed)
                #expect(done.receivedBytes == Int64(source.count))
                #expect(try contents(destination) == source + Self.mark)
                #expect(filesIn(destination.deletingLastPathComponent()) == ["song.wav"])
            }
        }
    }

    @Test("a finisher that declines keeps the file exactly as downloaded")
    func declines() async throws {
        try await withDemoCatalog { catalog, url in
            try await withSession(TransferSessionConfiguration(finisher: { _ in false })) { session, folder in
                let destination = folder.appendingPathComponent("files/song.wav")
                let id = try await session.start(url: previewURL(url, 1006), destination: destination)
                #expect(try await session.wait(for: id).state == .completed)
                #expect(try sameBytes(contents(destination), await catalog.preview(for: 1006)!.data))
                #expect(filesIn(destination.deletingLastPathComponent()) == ["song.wav"])
            }
        }
    }

    @Test("a finisher that says it finished but left an empty replacement: the file goes into place as downloaded")
    func emptyReplacement() async throws {
        try await withDemoCatalog { catalog, url in
            let empty: TransferFinisher = { download in
                FileManager.default.createFile(atPath: download.replacementPath, contents: Data())
            }
            try await withSession(TransferSessionConfiguration(finisher: empty)) { session, folder in
                let destination = folder.appendingPathComponent("files/song.wav")
                let id = try await session.start(url: previewURL(url, 1006), destination: destination)
                #expect(try await session.wait(for: id).state == .completed)
                #expect(try sameBytes(contents(destination), await catalog.preview(for: 1006)!.data))
                #expect(filesIn(destination.deletingLastPathComponent()) == ["song.wav"])
            }
        }
    }

    @Test("a scratch file a crash left beside the complete partial file is gone once the download is finished")
    func leftoverScratchFile() async throws {
        try await withDemoCatalog { catalog, url in
            let source = await catalog.preview(for: 1009)!.data
            try await withTemporaryDirectory { folder in
                let destination = folder.appendingPathComponent("files/song.wav")
                try await Self.stopWhileFinishing(1009, from: url, to: destination, in: folder)
                // What a finisher killed halfway through its replacement leaves.
                try Data("half a replacement".utf8).write(to: URL(fileURLWithPath: destination.path + ".finishing"))

                try await withSession(TransferSessionConfiguration(finisher: { _ in false }), folder: folder) { session, _ in
                    let id = try #require(await session.transfers().first?.id)
                    #expect(try await session.wait(for: id).state == .completed)
                }
                #expect(try contents(destination) == source)
                #expect(filesIn(destination.deletingLastPathComponent()) == ["song.wav"])
            }
        }
    }

    @Test("closed while finishing: the complete partial file stays; the next open finishes it without refetching")
    func stoppedWhileFinishing() async throws {
        try await withDemoCatalog { catalog, url in
            let source = await catalog.preview(for: 1007)!.data
            try await withTemporaryDirectory { folder in
                let destination = folder.appendingPathComponent("files/song.wav")
                try await Self.stopWhileFinishing(1007, from: url, to: destination, in: folder)
                #expect(!FileManager.default.fileExists(atPath: destination.path))
                #expect(try contents(URL(fileURLWithPath: destination.path + ".part")) == source)

                try await withSession(TransferSessionConfiguration(finisher: Self.marking), folder: folder) { session, _ in
                    let id = try #require(await session.transfers().first?.id)
                    #expect(try await session.wait(for: id).state == .completed)
                }
                #expect(try contents(destination) == source + Self.mark)
                let requests = catalog.previewRequests.filter { $0.trackId == 1007 }
                #expect(requests.count == 2)
                #expect(requests.last?.range == "bytes=\(source.count)-")
                #expect(requests.last?.bodyBytes == 0)
                #expect(filesIn(destination.deletingLastPathComponent()) == ["song.wav"])
            }
        }
    }

    @Test("killed after the finished file went into place but before the journal said so: the next open sees it done")
    func journalLagged() async throws {
        try await withDemoCatalog { catalog, url in
            let source = await catalog.preview(for: 1008)!.data
            try await withTemporaryDirectory { folder in
                let destination = folder.appendingPathComponent("files/song.wav")
                let configuration = TransferSessionConfiguration(finisher: Self.marking)
                try await withSession(configuration, folder: folder) { session, _ in
                    let id = try await session.start(url: previewURL(url, 1008), destination: destination)
                    #expect(try await session.wait(for: id).state == .completed)
                }
                // What a kill -9 between the rename and the journal's write leaves.
                let journal = try TransferJournal(path: folder.appendingPathComponent("session/test.journal.sqlite").path)
                var record = try #require(try journal.all().first)
                record.state = TransferState.running.rawValue
                try journal.save(record)

                try await withSession(configuration, folder: folder) { session, _ in
                    #expect(await session.transfers().first?.state == .completed)
                }
                #expect(try contents(destination) == source + Self.mark)
                #expect(catalog.previewRequests.filter { $0.trackId == 1008 }.count == 1)
            }
        }
    }
}
