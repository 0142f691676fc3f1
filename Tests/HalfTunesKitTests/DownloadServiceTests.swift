import DemoCatalog
import Foundation
import ITunesSearch
import TestSupport
import Testing
import TransferEngine

@testable import HalfTunesKit

/// The app's download service on a real DemoCatalog and a real disk.
@Suite("Download service", .timeLimit(.minutes(1)))
struct DownloadServiceTests {
    private func tracks(_ ids: [Int], from url: URL) async throws -> [Track] {
        let catalog = try ITunesCatalog(
            configuration: CatalogConfiguration(baseURL: url, callsPerMinute: nil), logger: quietLogger("c"))
        return try await catalog.lookup(ids: ids)
    }

    @Test("downloads land in the library, are remembered after a reopen, and remove deletes the file")
    func library() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let home = HalfTunesHome(root: folder)
                let wanted = try await tracks([1011, 1012], from: url)
                let service = try await DownloadService.open(home: home, logger: quietLogger("d"))
                let events = service.events()
                try await service.download(wanted)
                let files = await waitForCompletion(events, of: [1011, 1012])
                #expect(files.count == 2)
                for (id, file) in files {
                    #expect(file.deletingLastPathComponent().path == home.library.path)
                    #expect(
                        WAVAudio.audioHash(try Data(contentsOf: file)) == WAVAudio.audioHash(await catalog.preview(for: id)!.data)
                    )
                }
                #expect(await service.downloads().isEmpty)
                await service.close()

                let reopened = try await DownloadService.open(home: home, logger: quietLogger("d"))
                #expect(try await reopened.status(trackID: 1011)?.state == .downloaded)
                #expect(try reopened.libraryItems().map(\.track.id).sorted() == [1011, 1012])
                // Downloading it again does nothing: it is in the library.
                let statuses = try await reopened.download(wanted)
                #expect(statuses.allSatisfy { $0.state == .downloaded })
                #expect(catalog.previewRequests.filter { $0.trackId == 1011 }.count == 1)

                try await reopened.remove(trackID: 1011)
                #expect(!FileManager.default.fileExists(atPath: files[1011]!.path))
                #expect(try await reopened.status(trackID: 1011) == nil)
                await #expect(throws: DownloadError.self) { try await reopened.remove(trackID: 1011) }
                await reopened.close()
            }
        }
    }

    @Test(
        "a track asked for again between its download's end and its filing: downloading, all its bytes; fetched and filed once; not paused or cancelled"
    )
    func askedAgainWhileFiling() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let home = HalfTunesHome(root: folder)
                let wanted = try await tracks([1015], from: url)
                let size = try #require(await catalog.preview(for: 1015)).data.count
                let service = try await DownloadService.open(home: home, logger: quietLogger("d"))
                // Filing waits here until the test lets it go: the download has completed.
                let (reached, arrive) = AsyncStream<Void>.makeStream()
                let (released, release) = AsyncStream<Void>.makeStream()
                await service.setBeforeFiling {
                    arrive.yield()
                    for await _ in released { break }
                }
                let events = service.events()
                try await service.download(wanted)
                for await _ in reached { break }

                let again = try await service.download(wanted)
                #expect(again.map(\.state) == [.downloading])
                #expect(again.first?.receivedBytes == Int64(size) && again.first?.expectedBytes == Int64(size))
                #expect(try await service.status(trackID: 1015)?.state == .downloading)
                // Nothing to pause or cancel any more; resuming it leaves it to land.
                let pause = await #expect(throws: DownloadError.self) { try await service.pause(trackID: 1015) }
                #expect(pause?.code == .conflict)
                #expect(pause?.message == "cannot pause track 1015: it has finished downloading")
                let cancel = await #expect(throws: DownloadError.self) { try await service.cancel(trackID: 1015) }
                #expect(cancel?.code == .conflict)
                #expect(
                    cancel?.message
                        == "cannot cancel track 1015: it has finished downloading (remove it from the library instead)")
                try await service.resume(trackID: 1015)

                release.finish()
                let files = await waitForCompletion(events, of: [1015])
                #expect(files.count == 1)
                #expect(catalog.previewRequests.filter { $0.trackId == 1015 }.map(\.status) == [200])
                #expect(try service.libraryItems().map(\.track.id) == [1015])
                #expect(try FileManager.default.contentsOfDirectory(atPath: home.library.path).count == 1)
                #expect(await service.downloads().isEmpty)
                await service.close()
            }
        }
    }

    @Test(
        "a download whose filing fails is told and listed as failed; downloaded or resumed again, it starts over and lands",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs sqlite3 (Debian's sqlite3)"),
        arguments: ["download", "resume"])
    func filingFailedStartsOver(_ again: String) async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let home = HalfTunesHome(root: folder)
                let wanted = try await tracks([1016], from: url)
                let service = try await DownloadService.open(home: home, logger: quietLogger("d"))
                // The library's database refuses new tracks, by a trigger another program sets.
                func sqlite(_ sql: String) async throws {
                    let result = try await ChildProcess.run(
                        URL(fileURLWithPath: "/usr/bin/sqlite3"), [home.libraryIndex.path, sql])
                    try #require(result.status == 0, "sqlite3: \(result.stderr)")
                }
                try await sqlite(
                    "CREATE TRIGGER refuse BEFORE INSERT ON libraryTrack BEGIN SELECT RAISE(ABORT, 'refused'); END;")
                var events = service.events().makeAsyncIterator()
                try await service.download(wanted)
                var reason: String?
                while reason == nil, let event = await events.next() {
                    if case .failed(1016, let why) = event { reason = why }
                }
                #expect(reason?.hasPrefix("the download finished but could not be filed") == true, "\(reason ?? "")")
                let failed = try await service.status(trackID: 1016)
                #expect(failed?.state == .failed && failed?.failure == reason)
                #expect(await service.downloads().map(\.state) == [.failed])

                try await sqlite("DROP TRIGGER refuse;")
                if again == "download" { try await service.download(wanted) } else { try await service.resume(trackID: 1016) }
                let landed = await eventually(within: .seconds(20)) {
                    (try? service.libraryItems().map(\.track.id)) == [1016]
                }
                #expect(landed, "fetched again and filed")
                #expect(catalog.previewRequests.filter { $0.trackId == 1016 }.map(\.status) == [200, 200])
                #expect(try await service.status(trackID: 1016)?.state == .downloaded)
                // The transfer whose filing failed is forgotten: nothing is left to list.
                #expect(await service.downloads().isEmpty)
                await service.close()
            }
        }
    }

    @Test("a file deleted behind the app's back is no longer in the library")
    func fileGone() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let home = HalfTunesHome(root: folder)
                let service = try await DownloadService.open(home: home, logger: quietLogger("d"))
                let events = service.events()
                try await service.download(try await tracks([1013], from: url))
                let file = try #require(await waitForCompletion(events, of: [1013])[1013])
                try FileManager.default.removeItem(at: file)
                #expect(try await service.status(trackID: 1013) == nil)
                #expect(try service.libraryItems().isEmpty)
                await service.close()
            }
        }
    }

    @Test("pause and resume by track id; the state follows")
    func pauseResume() async throws {
        try await withDemoCatalog { catalog, url in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 500_000), for: 1014)
            try await withTemporaryDirectory { folder in
                let service = try await DownloadService.open(home: HalfTunesHome(root: folder), logger: quietLogger("d"))
                let events = service.events()
                try await service.download(try await tracks([1014], from: url))
                for await event in events {
                    if case .progress(1014, let received, _) = event, received > 50_000 { break }
                }
                try await service.pause(trackID: 1014)
                #expect(try await service.status(trackID: 1014)?.state == .paused)
                catalog.setFaults(PreviewFaults(), for: 1014)
                try await service.resume(trackID: 1014)
                let file = await waitForCompletion(events, of: [1014])[1014]
                #expect(file != nil)
                #expect(try await service.status(trackID: 1014)?.state == .downloaded)
                await service.close()
            }
        }
    }

    /// A service that queues downloads and starts none: nothing is downloaded.
    private func queuingService(in folder: URL) async throws -> DownloadService {
        var configuration = TransferSessionConfiguration()
        configuration.startsTransfers = false
        return try await DownloadService.open(
            home: HalfTunesHome(root: folder), configuration: configuration, logger: quietLogger("d"))
    }

    /// Tracks with the given ids, whose previews are never fetched (a queuing service).
    private func unfetchedTracks(_ ids: ClosedRange<Int>) -> [Track] {
        ids.map { id in
            Track(id: id, name: "Track \(id)", artist: "A", previewURL: URL(string: "http://127.0.0.1:9/\(id).m4a"))
        }
    }

    @Test("a listener that reads only after a batch of 1,500 downloads starts gets all 1,500 state changes, not an overflow")
    func batchBurst() async throws {
        try await withTemporaryDirectory { folder in
            let service = try await queuingService(in: folder)
            let events = service.events()
            let batch = unfetchedTracks(1...1_500)
            try await service.download(batch)
            var queued = Set<Int>()
            for await event in events {
                if case .stateChanged(let id, .queued) = event { queued.insert(id) }
                if case .fellBehind(let dropped) = event { Issue.record("fell behind, \(dropped) events lost") }
                if queued.count == batch.count { break }
            }
            #expect(queued == Set(1...1_500))
            await service.close()
        }
    }

    @Test("a listener of batches gets every event in order, the ones waiting when it reads in one batch")
    func eventBatches() async throws {
        try await withTemporaryDirectory { folder in
            let service = try await queuingService(in: folder)
            let batches = service.eventBatches(limit: 256)
            let events = service.events()
            let tracks = unfetchedTracks(1...600)
            try await service.download(tracks)
            // Once a listener of single events has had the 600 state changes, all 600 wait for
            // the listener of batches: it gets them in batches of 256, 256 and 88.
            var told = 0
            for await event in events {
                if case .stateChanged(_, .queued) = event { told += 1 }
                if told == tracks.count { break }
            }
            var sizes: [Int] = []
            var queued: [Int] = []
            for await batch in batches {
                sizes.append(batch.count)
                for case .stateChanged(let id, .queued) in batch { queued.append(id) }
                if queued.count == tracks.count { break }
            }
            #expect(queued == Array(1...600))
            #expect(sizes == [256, 256, 88])
            await service.close()
        }
    }
}
