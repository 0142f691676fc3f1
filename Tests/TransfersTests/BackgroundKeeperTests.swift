import DemoCatalog
import Foundation
import Logging
import TestSupport
import Testing
import TransferEngine

/// The agent's side of background sessions: a claimed session taken over when its process ends
/// (a real child process, killed), and left alone when the claim was withdrawn.
@Suite("background keeper", .timeLimit(.minutes(1)))
struct BackgroundKeeperTests {
    /// A session at `folder` holding one queued download of `url`, closed; and a claim on it by `pid`.
    private func journaledSession(_ folder: URL, url: URL, pid: Int32) async throws -> (BackgroundClaim, URL) {
        let configuration = TransferSessionConfiguration(startsTransfers: false)
        let session = try await TransferSession.open(
            identifier: "org.example.songs", directory: folder, configuration: configuration, logger: Logger(label: "test"))
        let destination = folder.appendingPathComponent("song.wav")
        _ = try await session.start(url: url, destination: destination)
        await session.close()
        var claim = BackgroundClaim(
            identifier: "org.example.songs", directory: folder, configuration: TransferSessionConfiguration())
        claim.pid = pid
        return (claim, destination)
    }

    /// A process that lives until it is killed.
    private func sleeper() throws -> ChildProcess { try ChildProcess(URL(fileURLWithPath: "/bin/sleep"), ["60"]) }

    @Test("the claimant killed: the keeper opens the session, finishes its download and closes it")
    func takesOverWhenTheOwnerEnds() async throws {
        try await withDemoCatalog { catalog, base in
            try await withTemporaryDirectory { folder in
                let owner = try sleeper()
                let (claim, destination) = try await journaledSession(
                    folder, url: URL(string: "\(base)/previews/1001.wav")!, pid: owner.pid)
                let keeper = BackgroundKeeper(logger: Logger(label: "test"))
                try await keeper.claim(claim)
                #expect(await keeper.sessions().map(\.running) == [false])

                // Another live process cannot claim it meanwhile.
                let rival = try sleeper()
                defer { rival.signal(SIGKILL) }
                var other = claim
                other.pid = rival.pid
                await #expect(throws: TransferError.self) { try await keeper.claim(other) }
                #expect(catalog.previewRequests.isEmpty)

                owner.signal(SIGKILL)
                _ = await owner.wait()
                let done = await eventually(within: .seconds(20)) { await !keeper.isBusy }
                #expect(done)
                let preview = try #require(await catalog.preview(for: 1001))
                #expect(sha256Hex(try Data(contentsOf: destination)) == sha256Hex(preview.data))
                #expect(catalog.previewRequests.count == 1)
            }
        }
    }

    @Test("a claim withdrawn before its process ends: nothing is taken over")
    func releasedClaimIsLeftAlone() async throws {
        try await withDemoCatalog { catalog, base in
            try await withTemporaryDirectory { folder in
                let owner = try sleeper()
                let (claim, destination) = try await journaledSession(
                    folder, url: URL(string: "\(base)/previews/1002.wav")!, pid: owner.pid)
                let keeper = BackgroundKeeper(logger: Logger(label: "test"))
                try await keeper.claim(claim)
                await keeper.release(directory: claim.directory, pid: claim.pid)
                #expect(await !keeper.isBusy)
                owner.signal(SIGKILL)
                _ = await owner.wait()
                // Still queued in its journal: opened (without starting anything), it says so.
                let session = try await TransferSession.open(
                    identifier: "org.example.songs", directory: folder,
                    configuration: TransferSessionConfiguration(startsTransfers: false), logger: Logger(label: "test"))
                #expect(await session.transfers().map(\.state) == [.queued])
                await session.close()
                #expect(!FileManager.default.fileExists(atPath: destination.path))
                #expect(catalog.previewRequests.isEmpty)
            }
        }
    }
}
