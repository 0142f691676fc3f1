import Foundation
import NIOCore
import Synchronization
import Testing

@testable import TransferEngine

/// The folder flush's group commit with files announced on their way in: a flush about to start
/// waits for their renames, so files finishing together share it.
@Suite("Folder flushes with arrivals")
struct FolderFlusherArrivalTests {
    let folder = FileManager.default.temporaryDirectory.path

    /// Whether `body` ends within 40 s: a regression fails the test instead of hanging the run.
    /// (No thread is blocked meanwhile: the cooperative pool may have only two.)
    static func finishes(_ body: @escaping @Sendable () async -> Void) async -> Bool {
        let answer = Answer()
        return await withCheckedContinuation { continuation in
            answer.pending.withLock { $0 = continuation }
            let bound = Task {
                // Long: the flushes wait on file-work threads the whole suite's flushes share.
                // Cancelled (the body ended): no answer from here, not even a late "no".
                do { try await Task.sleep(for: .seconds(40)) } catch { return }
                answer.give(false)
            }
            Task {
                await body()
                // The answer first: a bound cancelled before it was given used to answer "no".
                answer.give(true)
                bound.cancel()
            }
        }
    }

    /// The first answer of two racing tasks.
    final class Answer: Sendable {
        let pending = Mutex<CheckedContinuation<Bool, Never>?>(nil)
        func give(_ value: Bool) { pending.withLock { $0.take() }?.resume(returning: value) }
    }

    /// A hook that reports when a leader starts waiting, and a wait for that report.
    static func holding() -> (hook: @Sendable () -> Void, reported: @Sendable () async -> Void) {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        return ({ continuation.yield() }, { for await _ in stream { break } })
    }

    @Test("a flush waits for the files announced before it: one flush covers them, after every rename")
    func leaderWaitsForArrivals() async throws {
        let renamed = Atomic<Int>(0)
        let flushedEarly = Atomic<Bool>(false)
        let held = Self.holding()
        let flusher = FolderFlusher(
            flush: { _ in if renamed.load(ordering: .relaxed) < 2 { flushedEarly.store(true, ordering: .relaxed) } },
            holding: held.hook)
        let first = flusher.announce(folder)
        let second = flusher.announce(folder)
        let third = flusher.announce(folder)
        renamed.add(1, ordering: .relaxed)
        let leader = Task { await flusher.flush(after: first) }
        // The first file's flush of the folder waits: two more files are on their way.
        #expect(await Self.finishes(held.reported), "the flush did not wait for the files announced before it")
        #expect(flusher.flushCount == 0)
        renamed.add(1, ordering: .relaxed)
        let follower = Task { await flusher.flush(after: second) }
        flusher.withdraw(third)  // its own flush failed: it will not be renamed
        #expect(
            await Self.finishes {
                await leader.value
                await follower.value
            })
        #expect(flusher.flushCount == 1)
        let early = flushedEarly.load(ordering: .relaxed)
        #expect(!early, "the folder was flushed before the second rename")
    }

    @Test("a withdrawn file holds no flush, and a file on its own flushes at once")
    func withdrawnArrivals() async throws {
        // What is flushed does not matter here, only when: no disk is waited on.
        let flusher = FolderFlusher(flush: { _ in })
        let lone = flusher.announce(folder)
        #expect(await Self.finishes { await flusher.flush(after: lone) })
        #expect(flusher.flushCount == 1)
        let kept = flusher.announce(folder)
        let failed = flusher.announce(folder)
        flusher.withdraw(failed)
        #expect(await Self.finishes { await flusher.flush(after: kept) })
        #expect(flusher.flushCount == 2)
        // Withdrawn while a flush waits for it: the flush goes on without it.
        let held = Self.holding()
        let holding = FolderFlusher(flush: { _ in }, holding: held.hook)
        let renamed = holding.announce(folder)
        let failing = holding.announce(folder)
        let leader = Task { await holding.flush(after: renamed) }
        #expect(await Self.finishes(held.reported))
        holding.withdraw(failing)
        #expect(await Self.finishes { await leader.value })
        #expect(holding.flushCount == 1)
    }

    @Test("files finished together through the engine's path share folder flushes, and all land")
    func finishedTogether() async throws {
        let base = FileManager.default.temporaryDirectory.appending(path: "arrivals-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: base) }
        let flusher = FolderFlusher()
        let count = 24
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask {
                    let file = try PartialFile(path: "\(base)/\(index).part", offset: 0, flushes: true)
                    try file.write(ByteBuffer(string: "file \(index)"))
                    try await file.finish(at: "\(base)/\(index).m4a", folders: flusher)
                }
            }
            try await group.waitForAll()
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: base).sorted()
        #expect(names == (0..<count).map { "\($0).m4a" }.sorted())
        for index in 0..<count {
            #expect(try String(contentsOfFile: "\(base)/\(index).m4a", encoding: .utf8) == "file \(index)")
        }
        #expect((1...count).contains(flusher.flushCount))
    }
}
