import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import TransferEngine

@Suite(
    "Disk full",
    .enabled(if: TinyFilesystem.available, "cannot mount a tmpfs here (needs root on Linux): the disk-full test is skipped"),
    .timeLimit(.minutes(1)))
struct DiskFullTests {
    @Test("a full disk fails the transfer with a clear error, keeps the partial, and resumes once there is room")
    func diskFull() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                try await TinyFilesystem.withMounted(in: folder, size: "512k") { tiny in
                    try await withSession(TransferSessionConfiguration(retryPolicy: quickRetries), folder: folder) { session, _ in
                        let destination = tiny.appendingPathComponent("song.wav")
                        let id = try await session.start(url: previewURL(url, 1030), destination: destination)
                        let failed = try await session.wait(for: id)
                        #expect(failed.state == .failed)
                        #expect(failed.failure?.code == .diskFull)
                        #expect(failed.failure?.message.contains("no space left") == true)
                        #expect(failed.failure?.isPermanent == false)
                        let kept = PartialFile.length(at: destination.path + ".part")
                        #expect(kept > 0)
                        #expect(!FileManager.default.fileExists(atPath: destination.path))

                        // Make room, then resume: it continues from what was kept.
                        try TinyFilesystem.resize(tiny, to: "4m")
                        try await session.resume(id)
                        #expect(try await session.wait(for: id).state == .completed)
                        #expect(sha256Hex(try Data(contentsOf: destination)) == sha256Hex(await catalog.preview(for: 1030)!.data))
                        #expect(catalog.previewRequests.last { $0.trackId == 1030 }?.range == "bytes=\(kept)-")
                    }
                }
            }
        }
    }

    @Test("the journal on the full disk too: the failure is still reported, and the waiter is answered, not left hanging")
    func journalOnTheFullDisk() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                try await TinyFilesystem.withMounted(in: folder, size: "512k") { tiny in
                    // The session's folder, journal and all, on the disk that fills up.
                    try await withSession(TransferSessionConfiguration(retryPolicy: quickRetries), folder: tiny) { session, _ in
                        let events = session.events()
                        let id = try await session.start(
                            url: previewURL(url, 1030), destination: tiny.appendingPathComponent("song.wav"))
                        let failed = try await session.wait(for: id)
                        #expect(failed.state == .failed)
                        #expect(failed.failure?.code == .diskFull)
                        var reported = false
                        for await event in events {
                            if case .failed(id, let error) = event {
                                reported = error.code == .diskFull
                                break
                            }
                        }
                        #expect(reported)
                    }
                }
            }
        }
    }
}
