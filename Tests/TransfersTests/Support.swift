import DemoCatalog
import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

@testable import TransferEngine

/// Records a session's events and lets a test wait for the one it expects.
final class EventRecorder: Sendable {
    private let state = Mutex<
        (
            events: [TransferEvent],
            waiters: [(
                id: Int, match: @Sendable (TransferEvent) -> Bool, continuation: CheckedContinuation<TransferEvent?, Never>
            )], next: Int
        )
    >(([], [], 0))
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<TransferEvent>) {
        let box = Box()
        task = Task {
            for await event in stream { box.recorder?.append(event) }
            box.recorder?.finish()
        }
        box.recorder = self
    }

    private final class Box: @unchecked Sendable { weak var recorder: EventRecorder? }

    var events: [TransferEvent] { state.withLock { $0.events } }

    private func append(_ event: TransferEvent) {
        let ready = state.withLock { state -> [CheckedContinuation<TransferEvent?, Never>] in
            state.events.append(event)
            let matching = state.waiters.filter { $0.match(event) }
            state.waiters.removeAll { $0.match(event) }
            return matching.map(\.continuation)
        }
        ready.forEach { $0.resume(returning: event) }
    }

    private func finish() {
        let all = state.withLock { state in
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        all.forEach { $0.resume(returning: nil) }
    }

    /// The first event (already seen or still to come) that matches; `nil` if the stream ends first.
    func first(where match: @escaping @Sendable (TransferEvent) -> Bool) async -> TransferEvent? {
        await withCheckedContinuation { continuation in
            let found = state.withLock { state -> TransferEvent? in
                if let event = state.events.first(where: match) { return event }
                state.waiters.append((state.next, match, continuation))
                state.next += 1
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    /// Waits until `event` has been recorded; since the stream keeps the session's order, every
    /// event before it has been recorded too. `false` if the stream ends without it.
    func seen(_ event: TransferEvent) async -> Bool { await first { $0 == event } != nil }

    /// Waits until every one of the transfers has been recorded completing (see ``seen(_:)``).
    func seenCompleted(_ ids: [TransferID]) async -> Bool {
        for id in ids where !(await seen(.stateChanged(id, .completed))) { return false }
        return true
    }

    /// Waits until the transfer has received at least `bytes`.
    func received(_ id: TransferID, atLeast bytes: Int64) async {
        _ = await first { event in
            if case .progress(id, let received, _) = event { return received >= bytes }
            return false
        }
    }

    deinit { task.cancel() }
}

/// A session in a fresh folder, closed afterwards.
@discardableResult
func withSession<T>(
    _ configuration: TransferSessionConfiguration = TransferSessionConfiguration(),
    folder: URL? = nil,
    _ body: (TransferSession, URL) async throws -> T
) async throws -> T {
    try await withTemporaryDirectory { temporary in
        let folder = folder ?? temporary
        let session = try await TransferSession.open(
            identifier: "test", directory: folder.appendingPathComponent("session"), configuration: configuration,
            logger: quietLogger("transfers"))
        do {
            let result = try await body(session, folder)
            await session.close()
            return result
        } catch {
            await session.close()
            throw error
        }
    }
}

/// Fast retries, for tests of failure paths.
let quickRetries = RetryPolicy(maxAttemptsWithoutProgress: 4, baseDelay: .milliseconds(20), maxDelay: .milliseconds(100))

func previewURL(_ base: URL, _ id: Int) -> URL { base.appendingPathComponent("previews/\(id).wav") }

func contents(_ url: URL) throws -> Data { try Data(contentsOf: url) }

/// The rows `sql` selects from the journal of `withSession`'s session in `folder`, one a line, as
/// the `sqlite3` program (Debian's sqlite3) reads them, write-ahead log included: a check of the
/// journal that does not go through the engine.
func journalRows(_ sql: String, in folder: URL) async throws -> [String] {
    let journal = folder.appendingPathComponent("session/test.journal.sqlite").path
    let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/sqlite3"), ["-readonly", journal, sql])
    try #require(result.status == 0, "sqlite3: \(result.stderr)")
    return result.stdout.split(separator: "\n").map(String.init)
}
