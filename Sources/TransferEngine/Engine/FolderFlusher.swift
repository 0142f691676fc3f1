import Foundation
import Synchronization

/// Flushes folders for the renames made in them, several renames to one flush: group commit.
///
/// A download's rename survives a power cut once its folder is flushed. When files finish
/// together, the first to ask flushes the folder; the ones that ask meanwhile wait and are all
/// covered by the next flush, which starts after their renames. No caller returns before a flush
/// that began after its rename has ended, so each keeps the promise one flush each would keep.
///
/// Files on their way in are announced (``announce(_:)``) before their own bytes are flushed. A
/// flush about to start first waits for the renames of the files announced before it (each is
/// a file flush away, or withdrawn when it fails), so files finishing together share one flush of
/// their folder instead of the first of them flushing it alone.
final class FolderFlusher: Sendable {
    /// A file announced on its way into a folder: its rename, then ``flush(after:)``, or
    /// ``withdraw(_:)`` when it will not be renamed.
    struct Arrival: Sendable {
        let folder: String
        let number: Int
    }

    private struct Folder {
        /// Which round of requests this is. A folder's entry goes once every ticket it handed out
        /// is covered and no announced file is on its way (``isIdle``); the next request starts a
        /// new round, whose tickets count from 1 again.
        let round: Int
        /// Tickets handed out (one per request) and the highest one a finished flush covers.
        var requested = 0
        var covered = 0
        var flushing = false
        var waiters: [(ticket: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// Arrivals announced (numbered from 1) and those not yet renamed or withdrawn.
        var announced = 0
        var arriving: [Int] = []
        /// A leader waiting for the arrivals numbered up to `upTo` before it flushes.
        var held: (upTo: Int, continuation: CheckedContinuation<Void, Never>)?

        /// Whether the entry can go: nothing asked for, waited on or on its way.
        var isIdle: Bool { requested == covered && waiters.isEmpty && arriving.isEmpty && held == nil }

        /// Removes an arrival; returns the held leader when no arrival it waits for remains.
        mutating func arrive(_ number: Int) -> CheckedContinuation<Void, Never>? {
            arriving.removeAll { $0 == number }
            guard let held, !arriving.contains(where: { $0 <= held.upTo }) else { return nil }
            self.held = nil
            return held.continuation
        }
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
    /// Runs when a leader starts waiting for announced files (tests see it there).
    private let holding: @Sendable () -> Void

    /// A flusher; the parameters are for tests.
    init(
        flush: @escaping @Sendable (String) -> Void = FolderFlusher.flushNow,
        beforeWaiting: @escaping @Sendable () async -> Void = {},
        holding: @escaping @Sendable () -> Void = {}
    ) {
        flushFolder = flush
        self.beforeWaiting = beforeWaiting
        self.holding = holding
    }

    /// The number of flushes so far.
    var flushCount: Int { flushes.load(ordering: .relaxed) }

    /// Announces a file on its way into `folder`, before its bytes are flushed: a flush of the
    /// folder about to start waits for it. Follow with ``flush(after:)`` once the file is renamed,
    /// or ``withdraw(_:)``.
    func announce(_ folder: String) -> Arrival {
        folders.withLock { folders in
            if folders[folder] == nil { folders[folder] = Folder(round: rounds.add(1, ordering: .relaxed).newValue) }
            folders[folder]!.announced += 1
            folders[folder]!.arriving.append(folders[folder]!.announced)
            return Arrival(folder: folder, number: folders[folder]!.announced)
        }
    }

    /// Withdraws an arrival that will not be renamed (its flush or rename failed).
    func withdraw(_ arrival: Arrival) {
        let held = folders.withLock { folders -> CheckedContinuation<Void, Never>? in
            guard folders[arrival.folder] != nil else { return nil }
            let held = folders[arrival.folder]!.arrive(arrival.number)
            if folders[arrival.folder]!.isIdle && !folders[arrival.folder]!.flushing { folders[arrival.folder] = nil }
            return held
        }
        held?.resume()
    }

    /// ``flush(_:)`` for an announced file, once it is renamed.
    func flush(after arrival: Arrival) async { await flush(arrival.folder, arrival: arrival.number) }

    /// Returns once a flush of `folder` that started after this call has ended. As before group
    /// commit, a folder that cannot be flushed (some file systems refuse) is not an error: the
    /// file itself is already flushed.
    func flush(_ folder: String) async { await flush(folder, arrival: nil) }

    private func flush(_ folder: String, arrival: Int?) async {
        let (ticket, round, leads, held, holds) = folders.withLock { folders in
            if folders[folder] == nil { folders[folder] = Folder(round: rounds.add(1, ordering: .relaxed).newValue) }
            let held = arrival.flatMap { folders[folder]!.arrive($0) }
            folders[folder]!.requested += 1
            let ticket = folders[folder]!.requested
            let leads = !folders[folder]!.flushing
            if leads { folders[folder]!.flushing = true }
            // A leader waits for the files announced before it, if any is still on its way.
            let holds = leads && !folders[folder]!.arriving.isEmpty
            return (ticket, folders[folder]!.round, leads, held, holds)
        }
        held?.resume()
        if leads {
            if holds {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = folders.withLock { folders -> Bool in
                        let upTo = folders[folder]!.announced
                        guard folders[folder]!.arriving.contains(where: { $0 <= upTo }) else { return true }
                        folders[folder]!.held = (upTo, continuation)
                        return false
                    }
                    if now { continuation.resume() } else { holding() }
                }
            }
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
                folders[folder] = state.isIdle ? nil : state
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
