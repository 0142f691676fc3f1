import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import TransferEngine

/// A fresh download's validator reaches the journal once its body has been arriving for the
/// progress interval or has brought ``BodyWriter/unjournaledBytes``, or with the transfer's record
/// when it stops before then (``BodyWriter``). The journal is read back with the `sqlite3` program
/// (Debian's sqlite3), not through the engine.
@Suite(
    "A fresh download's validator, journaled when due", .timeLimit(.minutes(1)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "needs sqlite3 (Debian's sqlite3)"))
struct LateValidatorTests {
    /// The ETag the journal holds for a transfer ("" when none), as sqlite3 reads it (WAL included).
    private func journaledETag(of id: TransferID, in folder: URL) async throws -> String {
        try await journalRows("SELECT coalesce(etag, '') FROM transfer WHERE id = '\(id.rawValue)'", in: folder).joined()
    }

    /// Waits until the file at `path` holds at least `bytes` (at most 40 s, for a loaded machine).
    private func waitForFile(_ path: String, atLeast bytes: Int64) async throws {
        let deadline = ContinuousClock.now + .seconds(40)
        while PartialFile.length(at: path) < bytes {
            try #require(ContinuousClock.now < deadline, "\(path) stayed under \(bytes) bytes")
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test("paused before its validator was due: the pause journals it, and after a reopen the rest comes with If-Range")
    func pausedEarly() async throws {
        try await withDemoCatalog { catalog, url in
            let preview = try #require(await catalog.preview(for: 1004))
            catalog.setFaults(PreviewFaults(bytesPerSecond: 200_000), for: 1004)
            // No progress interval passes: only the pause can journal the validator.
            let configuration = TransferSessionConfiguration(progressInterval: .seconds(3600))
            try await withTemporaryDirectory { folder in
                let destination = folder.appendingPathComponent("song.wav")
                let (id, resumeData) = try await withSession(configuration, folder: folder) { session, _ in
                    let id = try await session.start(url: previewURL(url, 1004), destination: destination)
                    try await waitForFile(destination.path + ".part", atLeast: 50_000)
                    #expect(try await journaledETag(of: id, in: folder) == "")  // under a MiB, within the interval
                    let resumeData = try await session.pause(id)
                    #expect(resumeData.validator.etag == preview.etag)
                    #expect(try await journaledETag(of: id, in: folder) == preview.etag)
                    return (id, resumeData)
                }

                catalog.setFaults(PreviewFaults(), for: 1004)
                try await withSession(configuration, folder: folder) { session, _ in
                    try await session.resume(id)
                    #expect(try await session.wait(for: id).state == .completed)
                }
                #expect(sha256Hex(try contents(destination)) == sha256Hex(preview.data))
                let last = try #require(catalog.previewRequests.last { $0.trackId == 1004 })
                #expect(last.ifRange == preview.etag)
                #expect(last.status == 206)
                #expect(Int64(last.bodyBytes) == Int64(preview.data.count) - resumeData.bytesOnDisk)
            }
        }
    }

    @Test("a body past the progress interval, or past a MiB, has its validator journaled while it still arrives")
    func journaledWhileArriving() async throws {
        try await withDemoCatalog { catalog, url in
            let preview = try #require(await catalog.preview(for: 1005))
            try #require(preview.data.count > 1_200_000, "the test needs a preview over 1.2 MB")
            catalog.setFaults(PreviewFaults(bytesPerSecond: 400_000), for: 1005)
            // By time: the first progress report comes after 50 ms, the validator before it.
            try await withSession(TransferSessionConfiguration(progressInterval: .milliseconds(50))) { session, folder in
                var events = session.events().makeAsyncIterator()
                let id = try await session.start(url: previewURL(url, 1005), destination: folder.appendingPathComponent("a.wav"))
                while let event = await events.next() {
                    if case .progress(id, _, _) = event { break }
                }
                #expect(try await journaledETag(of: id, in: folder) == preview.etag)
                #expect(await session.transfer(id)?.state == .running)  // so it was read mid-body
                try await session.cancel(id)
            }
            // By bytes: no interval passes, and past a MiB the validator is journaled.
            catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: 1005)
            try await withSession(TransferSessionConfiguration(progressInterval: .seconds(3600))) { session, folder in
                let destination = folder.appendingPathComponent("b.wav")
                let id = try await session.start(url: previewURL(url, 1005), destination: destination)
                try await waitForFile(destination.path + ".part", atLeast: BodyWriter.unjournaledBytes + 1)
                #expect(try await journaledETag(of: id, in: folder) == preview.etag)
                #expect(await session.transfer(id)?.state == .running)  // so it was read mid-body
                try await session.cancel(id)
            }
        }
    }
}
