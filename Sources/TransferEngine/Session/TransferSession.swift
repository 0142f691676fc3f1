import AsyncHTTPClient
import Foundation
import Logging
import NetworkBasics
import SystemBasics

/// A persistent, resumable "background session" for Linux: what URLSession's background
/// configuration and resume data do on Apple platforms.
///
/// One process at a time owns a session (others get an error naming the owner). Every transfer is
/// journaled in SQLite; after a crash or kill -9, opening the session again finds each unfinished
/// transfer, reconciles it with its partial file, and resumes it with a validated range request.
///
/// ```swift
/// let session = try await TransferSession.open(identifier: "downloads", directory: folder, logger: logger)
/// let id = try await session.start(url: previewURL, destination: folder.appendingPathComponent("song.m4a"))
/// let resumeData = try await session.pause(id)          // persist resumeData.encoded() anywhere
/// try await session.resume(with: resumeData)           // later, even in another process
/// ```
public actor TransferSession {
    /// The session's name; its journal and lock file are named after it.
    public nonisolated let identifier: String
    /// The folder holding the journal and lock file.
    public nonisolated let directory: URL
    /// How the session behaves.
    public nonisolated let configuration: TransferSessionConfiguration

    let journal: TransferJournal
    let lock: SessionLock
    /// The HTTP clients the session's transfers connect through (one per proxy).
    let clients: HTTPClientSet
    /// The session's HTTP clients, for other requests of the process to share its connections
    /// (a catalog lookup whose previews come from the same host): valid until ``close()``.
    public nonisolated var httpClients: HTTPClientSet { clients }
    let runner: TransferRunner
    let scheduler: Scheduler
    let hub = EventHub<TransferEvent>()
    let logger: Logger

    var records = TransferTable()
    var running: [TransferID: Task<Void, Never>] = [:]
    /// The host (and port) of each running transfer that has, or waits for, a connection. The
    /// other running transfers have all their bytes and are finishing their files (see
    /// ``schedule()``).
    var connectedHosts: [TransferID: String] = [:]
    var stopIntents: [TransferID: StopIntent] = [:]
    var waiters: [TransferID: [CheckedContinuation<TransferSnapshot, Never>]] = [:]
    var isClosed = false
    /// Transfers forgotten whose journal rows are not deleted yet: the deletes go with the next
    /// journal write, in its commit (see `forget(_:)`).
    var forgotten: [TransferID] = []
    /// Transfers completed in memory whose completion is not journaled (nor reported) yet: they
    /// are journaled together, in one commit (see ``journalCompletions()``).
    var completing: [TransferID] = []
    /// When the last completions were journaled: the next commit of completions waits until
    /// ``completionSpacing`` after it (see ``journalCompletionsSoon()``).
    var lastCompletionCommit: ContinuousClock.Instant?

    /// Where a transfer whose URL went stale finds a fresh one (see ``setFreshURLLookup(_:)``).
    var freshURLLookup: (@Sendable (TransferID, _ stale: URL, _ status: Int) async -> URL?)?
    /// Asked before a transfer follows a redirect (``setRedirectApproval(_:)``).
    var redirectApproval: (@Sendable (TransferID, Int, URL, URL) async -> Bool)?
    /// Answers a 401's challenge (``setAuthorizer(_:)``).
    var authorizer: Authorizer?
    /// Keeps the cookies (``setCookies(_:)``).
    var cookies: Cookies?

    /// Why a running transfer is being stopped.
    enum StopIntent { case pause, cancel, interrupt }

    /// Opens a session, taking ownership of it, and resumes every unfinished transfer it journaled.
    ///
    /// - Parameters:
    ///   - identifier: The session's name (letters, digits, `.`, `_`, `-`).
    ///   - directory: Where its journal and lock file live (created if needed).
    ///   - configuration: Limits, retries and timeouts.
    ///   - clock: The clock for retry backoff and progress pacing.
    ///   - logger: Where the session logs.
    /// - Throws: ``TransferError`` with code `.sessionLocked` naming the owner when another process
    ///   has the session open, or `.journal` / `.fileSystem` when its files cannot be used.
    public static func open<C: Clock>(
        identifier: String,
        directory: URL,
        configuration: TransferSessionConfiguration = TransferSessionConfiguration(),
        clock: C = ContinuousClock(),
        logger: Logger
    ) async throws(TransferError) -> TransferSession where C.Duration == Duration {
        try checkIdentifier(identifier)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw TransferError(
                .fileSystem,
                "cannot create the session folder \(directory.path): \(FolderProblem.reason(creating: directory, failedWith: error))",
                permanent: true)
        }
        let lock = try SessionLock(path: lockPath(identifier: identifier, directory: directory))
        let journal: TransferJournal
        do {
            journal = try await TransferJournal.open(
                path: configuration.keepsJournalInMemory
                    ? TransferJournal.inMemory : journalPath(identifier: identifier, directory: directory))
        } catch {
            lock.release()
            throw error
        }
        let session = TransferSession(
            identifier: identifier, directory: directory, configuration: configuration, journal: journal, lock: lock,
            time: Timekeeper(clock), logger: logger)
        do {
            try await session.recover()
        } catch {
            await session.close()
            throw error
        }
        return session
    }

    /// Refuses a session name that is not letters, digits, `.`, `_` and `-` (up to 100).
    static func checkIdentifier(_ identifier: String) throws(TransferError) {
        guard !identifier.isEmpty, identifier.count <= 100,
            identifier.unicodeScalars.allSatisfy({
                $0.isASCII
                    && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "._-".unicodeScalars.contains($0))
            })
        else {
            throw TransferError(
                .invalidState, "a session identifier uses letters, digits, '.', '_' and '-' only", permanent: true)
        }
    }

    /// Where the session `identifier` in `directory` keeps its lock file.
    static func lockPath(identifier: String, directory: URL) -> String {
        directory.appendingPathComponent("\(identifier).lock").path
    }

    /// Where the session `identifier` in `directory` keeps its journal.
    static func journalPath(identifier: String, directory: URL) -> String {
        directory.appendingPathComponent("\(identifier).journal.sqlite").path
    }

    private init(
        identifier: String, directory: URL, configuration: TransferSessionConfiguration, journal: TransferJournal,
        lock: SessionLock, time: Timekeeper, logger: Logger
    ) {
        self.identifier = identifier
        self.directory = directory
        self.configuration = configuration
        self.journal = journal
        self.lock = lock
        self.logger = logger
        self.clients = configuration.httpClients ?? configuration.makeHTTPClients()
        self.scheduler = Scheduler(
            maxConcurrent: configuration.maxConcurrentTransfers, maxPerHost: configuration.maxTransfersPerHost,
            waitingPerHost: configuration.requestsWaitingPerHost)
        self.runner = TransferRunner(
            clients: clients, policy: configuration.retryPolicy, stallTimeout: configuration.stallTimeout,
            progressInterval: configuration.progressInterval, checkpointBytes: configuration.checkpointBytes,
            durability: configuration.durability, reportsResponses: configuration.reportsResponses,
            finisher: configuration.finisher, time: time, logger: logger,
            cap: BandwidthCap(bytesPerSecond: configuration.bandwidthLimit),
            deliversErrorBodies: configuration.deliversErrorBodies, maxRedirects: configuration.maxRedirects,
            keepsPublicTransfersPublic: configuration.keepsPublicTransfersPublic,
            maximumFileSize: configuration.maximumFileSize)
    }

    /// The most bytes a second all transfers together receive now (`nil`: no cap).
    public nonisolated var bandwidthLimit: Int? { runner.cap.bytesPerSecond }

    /// Caps all transfers together at `bytesPerSecond` (`nil`: no cap), from their next body part on.
    public nonisolated func setBandwidthLimit(_ bytesPerSecond: Int?) {
        runner.cap.set(bytesPerSecond: bytesPerSecond.map { max(1, $0) })
    }

    /// A stream of every event from now on. Each call gives a new, independent stream; it ends
    /// when the session closes.
    public nonisolated func events() -> AsyncStream<TransferEvent> { hub.subscribe() }

    /// The same events, in batches: each element is every event waiting for this stream when its
    /// consumer asks (at most `limit`, at least one), in order. For a consumer with a fixed cost
    /// it can share between events, such as a commit of its own database for completed transfers.
    public nonisolated func eventBatches(limit: Int = 256) -> AsyncStream<[TransferEvent]> {
        hub.subscribeBatches(limit: limit)
    }

    /// Every transfer the session knows, in queue order.
    public func transfers() -> [TransferSnapshot] {
        records.values.sorted { $0.seq < $1.seq }.map(\.snapshot)
    }

    /// One transfer, if the session knows it.
    public func transfer(_ id: TransferID) -> TransferSnapshot? { records.read(id) { $0.snapshot } }

    /// Some transfers, by id: those of `ids` the session knows (one call for a batch).
    public func transfers(_ ids: [TransferID]) -> [TransferID: TransferSnapshot] {
        var snapshots: [TransferID: TransferSnapshot] = [:]
        snapshots.reserveCapacity(ids.count)
        for id in ids { snapshots[id] = records.read(id) { $0.snapshot } }
        return snapshots
    }

    /// How far some transfers have come, by id: those of `ids` the session knows. Lighter than
    /// ``transfers(_:)`` for a progress display of a large batch.
    public func progress(_ ids: [TransferID]) -> [TransferID: TransferProgress] {
        var progress: [TransferID: TransferProgress] = [:]
        progress.reserveCapacity(ids.count)
        for id in ids { progress[id] = records.read(id) { $0.progress } }
        return progress
    }

    /// Waits until the transfer stops moving (completed, failed, paused or cancelled) and returns it.
    public func wait(for id: TransferID) async throws(TransferError) -> TransferSnapshot {
        guard let state = records.read(id, { $0.transferState }) else { throw .unknown(id) }
        if ![.queued, .running].contains(state) && !completing.contains(id), let snapshot = records.read(id, { $0.snapshot }) {
            return snapshot
        }
        return await withCheckedContinuation { continuation in waiters[id, default: []].append(continuation) }
    }

    /// Stops every running transfer so that it resumes at the next open (their state stays
    /// queued), closes the journal's owner lock and ends every event stream.
    public func close() async {
        guard !isClosed else { return }
        isClosed = true
        let tasks = running
        for id in tasks.keys { stopIntents[id] = .interrupt }
        for task in tasks.values { task.cancel() }
        for task in tasks.values { await task.value }
        journalCompletions()
        do { try journalDelete([]) } catch {
            logger.error("cannot forget transfers in the journal", metadata: ["error": "\(error)"])
        }
        await clients.shutdown()
        for (id, continuations) in waiters {
            let snapshot = records[id]?.snapshot
            for continuation in continuations { if let snapshot { continuation.resume(returning: snapshot) } }
        }
        waiters = [:]
        hub.finish()
        journal.close()
        lock.release()
    }

    // MARK: - Helpers shared by the operations

    func record(_ id: TransferID) throws(TransferError) -> TransferRecord {
        guard let record = records[id] else { throw .unknown(id) }
        return record
    }

    /// Moves a transfer to the state `action` leads to, journals it (unless `journaled` is false)
    /// and tells subscribers.
    ///
    /// Starting a queued transfer is not journaled: recovery treats a running transfer exactly as
    /// a queued one, so the write would buy nothing (and cost one commit per download).
    ///
    /// With `reported` false the change is neither journaled nor told: the caller does both later
    /// (see ``journalCompletions()``).
    @discardableResult
    func apply(
        _ action: TransferAction, to id: TransferID, journaled: Bool = true, reported: Bool = true,
        update: (inout TransferRecord) -> Void = { _ in }
    ) throws(TransferError) -> TransferRecord {
        // Changed where it is; one copy comes out, for the journal and the caller.
        let changed = try records.update(id) { (record) throws(TransferError) -> (TransferRecord, TransferState) in
            guard let next = TransferStateMachine.next(record.transferState, on: action) else {
                throw .invalidState(id, record.transferState, action.rawValue)
            }
            record.state = next.rawValue
            update(&record)
            return (record, next)
        }
        guard let changed else { throw .unknown(id) }
        let (record, next) = changed
        guard reported else { return record }
        // Reported even when the journal cannot say so (a full disk): the change has happened,
        // and whoever waits on the transfer learns of it; the next open finds it unfinished.
        var unjournaled: TransferError?
        if journaled {
            do { try journalSave([record]) } catch { unjournaled = error }
        }
        hub.emit(.stateChanged(id, next))
        if ![.queued, .running].contains(next) { resumeWaiters(id) }
        if let unjournaled { throw unjournaled }
        return record
    }

    /// Moves a transfer to the state `action` leads to and lets it leave the session, with one
    /// journal write (the delete): for sessions that keep no history of finished transfers.
    func retire(_ action: TransferAction, _ id: TransferID, update: (inout TransferRecord) -> Void) throws(TransferError) {
        guard let state = records.read(id, { $0.transferState }) else { throw .unknown(id) }
        guard let next = TransferStateMachine.next(state, on: action) else {
            throw .invalidState(id, state, action.rawValue)
        }
        try journalDelete([id])
        guard var record = records.remove(id) else { return }
        record.state = next.rawValue
        update(&record)
        hub.emit(.stateChanged(id, next))
        resumeWaiters(id, with: record.snapshot)
    }

    /// Journals `records` (inserted or replaced) with the deletes of the transfers forgotten
    /// since the last write, in one commit.
    func journalSave(_ records: [TransferRecord]) throws(TransferError) {
        try journal.save(records, deleting: forgotten)
        forgotten.removeAll()
    }

    /// Deletes transfers from the journal, with those forgotten since the last write, in one commit.
    func journalDelete(_ ids: [TransferID]) throws(TransferError) {
        try journal.save([], deleting: forgotten + ids)
        forgotten.removeAll()
    }

    func resumeWaiters(_ id: TransferID, with final: TransferSnapshot? = nil) {
        guard let continuations = waiters.removeValue(forKey: id) else { return }
        let snapshot =
            final ?? records.read(id, { $0.snapshot })
            ?? TransferSnapshot(
                id: id, url: "file:///", destination: "/", tag: nil, state: .cancelled, receivedBytes: 0,
                expectedBytes: nil, failure: nil, contentType: nil, requestHeaders: nil, partialFile: nil)
        continuations.forEach { $0.resume(returning: snapshot) }
    }
}
