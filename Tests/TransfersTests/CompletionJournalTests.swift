import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import TransferEngine

/// Completions are journaled in shared commits, and never told before their commit. The journal
/// is read back with the `sqlite3` program (Debian's sqlite3), not through the engine.
@Suite("Completions journaled before they are told", .timeLimit(.minutes(1)))
struct CompletionJournalTests {
    /// A transfer's state in the journal, as sqlite3 reads it (WAL included).
    private func journaledState(of id: TransferID, in folder: URL) async throws -> String {
        try await journalRows("SELECT state FROM transfer WHERE id = '\(id.rawValue)'", in: folder).joined()
    }

    @Test(
        "each completed transfer, as it is told and as wait returns it, is completed in the journal",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs sqlite3 (Debian's sqlite3)"))
    func toldAfterTheCommit() async throws {
        try await withDemoCatalog { catalog, url in
            let tracks = catalog.tracks.filter(\.hasPreview).map(\.id)
            try await withSession(.init(maxConcurrentTransfers: 4, maxTransfersPerHost: 4)) { session, folder in
                var events = session.events().makeAsyncIterator()
                var ids: [TransferID] = []
                for index in 0..<24 {
                    let destination = folder.appendingPathComponent("files/\(index).wav")
                    ids.append(
                        try await session.start(url: previewURL(url, tracks[index % tracks.count]), destination: destination))
                }
                // The first completion told is read back at once, while the others still run.
                var told: [TransferID] = []
                while told.isEmpty, let event = await events.next() {
                    guard case .completed(let id, let location) = event else { continue }
                    #expect(try await journaledState(of: id, in: folder) == "completed")
                    #expect(FileManager.default.fileExists(atPath: location.path))
                    told.append(id)
                }
                for id in ids {
                    #expect(try await session.wait(for: id).state == .completed)
                    #expect(try await journaledState(of: id, in: folder) == "completed")
                }
            }
        }
    }
}
