import Foundation
import ITunesSearch
import TestSupport
import Testing

@testable import HalfTunesKit

/// The library's index, closed by downloads that flush nothing, leaves its write-ahead log for
/// the next reader; closed otherwise, it checkpoints it. The `sqlite3` program (Debian's sqlite3)
/// and the index reopened find every track either way.
@Suite("The library index at close")
struct LibraryOnCloseTests {
    @Test(
        "left log or checkpoint, the added track is read back by sqlite3 and by the index reopened",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs sqlite3 (Debian's sqlite3)"),
        arguments: [false, true])
    func closing(checkpointsOnClose: Bool) async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("library.sqlite").path
            let library = folder.appendingPathComponent("library")
            do {
                let store = try LibraryStore(path: path, folder: library, checkpointsOnClose: checkpointsOnClose)
                try Data(repeating: 1, count: 5).write(to: library.appendingPathComponent("song.wav"))
                _ = try store.add(Track(id: 5, name: "Song", artist: "A"), fileName: "song.wav", addedAt: Date())
            }
            let log = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
            if checkpointsOnClose {
                #expect(log == nil, "the log should be checkpointed and removed")
            } else {
                #expect((log ?? 0) > 0, "the log should be left with the commits in it")
            }
            let result = try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/sqlite3"), ["-readonly", path, "SELECT id FROM libraryTrack"])
            try #require(result.status == 0, "sqlite3: \(result.stderr)")
            #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "5")
            let reopened = try LibraryStore(path: path, folder: library)
            #expect(try reopened.items().map(\.track.id) == [5])
        }
    }
}
