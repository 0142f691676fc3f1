import Foundation
import TestSupport
import Testing

@testable import TransferEngine

/// Who keeps the journal open: the session alone, not the writers of its transfers' checkpoints
/// (the HTTP client may hold a finished request's writer past its own shutdown).
@Suite("Checkpoint journaling")
struct CheckpointJournalingTests {
    private static let id = TransferID(rawValue: "t1")

    private static func record() -> TransferRecord {
        TransferRecord(
            id: id.rawValue, seq: 1, url: "http://127.0.0.1:9/a.m4a", destination: "/music/a.m4a",
            partialFile: "/music/a.m4a.part", tag: nil, state: TransferState.running.rawValue, receivedBytes: 0,
            durableBytes: 0, expectedBytes: nil, etag: nil, lastModified: nil, contentType: nil, errorCode: nil,
            errorMessage: nil, errorPermanent: nil, createdAt: Date(timeIntervalSince1970: 0),
            updatedAt: Date(timeIntervalSince1970: 0))
    }

    private static let head = Checkpoint(
        validator: Validator(etag: "\"v1\""), expectedBytes: 100, receivedBytes: 0, contentType: "audio/mp4")

    @Test("a checkpoint reaches the open journal; the writer does not keep the journal open, and fails once it is gone")
    func writerHoldsJournalWeakly() async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("test.journal.sqlite").path
            weak var held: TransferJournal?
            var persist: (@Sendable (Checkpoint) throws(TransferError) -> Void)?
            do {
                let journal = try TransferJournal(path: path)
                held = journal
                try journal.save(Self.record())
                persist = TransferSession.checkpointJournaling(Self.id, in: journal)
                try persist?(Self.head)
                #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            }
            // Let go by its owner, the journal closed at once: its log copied in and deleted.
            #expect(held == nil, "the checkpoint writer kept the journal open")
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the journal's log was left behind")
            let stored = try #require(try TransferJournal(path: path).all().first)
            #expect(stored.etag == "\"v1\"" && stored.expectedBytes == 100 && stored.contentType == "audio/mp4")
            do throws(TransferError) {
                try persist?(Self.head)
                Issue.record("a checkpoint was written with the journal gone")
            } catch {
                #expect(error.code == .journal)
            }
        }
    }
}
