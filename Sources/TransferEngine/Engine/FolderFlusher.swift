import Foundation
import Synchronization

/// Flushes folders for the renames made in them, several renames to one flush: group commit.
///
/// A download's rename survives a power cut once its folder is flushed. When files finish
/// together, the first to ask flushes the folder; the ones that ask meanwhile wait and are all
/// covered by the next flush, which starts after their renames. No caller returns before a flush
/// that began after its rename has ended, so each keeps the promise one flush each would keep.
final class FolderFlusher: Sendable {
    private struct Folder {
        /// Which round of requests this is. A folder's entry goes once every ticket it handed out
        /// is covered; the next request starts a new round, whose tickets count from 1 again.
        let round: Int
        /// Tickets handed out (one per request) and the highest one a finished flush covers.
        var requested = 0
        var covered = 0
        var flushing = false
        var waiters: [(ticket: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let folders = Mutex<[String: Folder]>([:])
    /// Rounds begun, over all folders.
    private let rounds = Atomic<Int>(0)
    /// How many flushes ran, for tests and benchmarks.
    private let flushes = Atomic<Int>(0)
    /// Flushes a folder (tests pass one that pauses, to order threads).
    private let flushFolder: @Sendable (String) -> Void
    /// Runs between a caller's ticket and its wait (tests pause there, to open the race it had).
    private let beforeWaiting: @Sendable () async -> Void

    /// A flusher; the parameters are for tests.
    init(
        flush: @escaping @Sendable (String) -> Void = FolderFlusher.flushNow,
        beforeWaiting: @escaping @Sendable () async -> Void = {}
    ) {
        flushFolder = flush
        self.beforeWaiting = beforeWaiting
    }

    /// The number of flushes so far.
    var flushCount: Int { flushes.load(ordering: .relaxed) }

    /// Returns once a flush of `folder` that started after this call has ended. As before group
    /// commit, a folder that cannot be flushed (some file systems refuse) is not an error: the
    /// file itself is already flushed.
    func flush(_ folder: String) async {
        let (ticket, round, leads) = folders.withLock { folders in
            if folders[folder] == nil { folders[folder] = Folder(round: rounds.add(1, ordering: .relaxed).newValue) }
            folders[folder]!.requested += 1
            let ticket = folders[folder]!.requested
            let leads = !folders[folder]!.flushing
            if leads { folders[folder]!.flushing = true }
            return (ticket, folders[folder]!.round, leads)
        }
        if leads {
            // On a file-work thread; inline only if that pool could not take it (it never stops).
            do { try await FileWork.run { self.lead(folder) } } catch { lead(folder) }
            return
        }
        await beforeWaiting()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = folders.withLock { folders -> Bool in
                // No entry, or another round's: the leader covered every ticket of this call's round,
                // this one too, and finished meanwhile. (Waiting on a later round, whose tickets
                // count from 1 again, would wait for a ticket that round may never reach.)
                guard let state = folders[folder], state.round == round, state.covered < ticket else { return true }
                folders[folder]!.waiters.append((ticket, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Flushes until every ticket handed out is covered, waking the waiters each flush covers.
    private func lead(_ folder: String) {
        while true {
            let covering = folders.withLock { $0[folder]!.requested }
            flushFolder(folder)
            flushes.add(1, ordering: .relaxed)
            let (woken, done) = folders.withLock { folders in
                var state = folders[folder]!
                state.covered = max(state.covered, covering)
                let woken = state.waiters.filter { $0.ticket <= covering }
                state.waiters.removeAll { $0.ticket <= covering }
                let done = state.requested == state.covered
                if done { state.flushing = false }
                folders[folder] = done && state.waiters.isEmpty ? nil : state
                return (woken, done)
            }
            for waiter in woken { waiter.continuation.resume() }
            if done { break }
        }
    }

    static func flushNow(_ folder: String) {
        let descriptor = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}
