import Foundation
import Logging

/// Keeps background sessions going after the processes that own them end: what the transfer
/// agent does with the claims of `ResumableURLSession` background sessions.
///
/// A process claims its session before it opens it (``claim(_:)``). If the keeper is running the
/// session since its last owner ended, it closes it first, so the claimant finds it free; then it
/// watches the new owner. When the owner ends without ``release(directory:pid:)`` (an exit, a
/// crash, SIGKILL), the keeper opens the session itself, which resumes its transfers from the
/// bytes on disk, and closes it once none is queued or running: what finished or failed waits in
/// the journal, with its files, for the next owner to be told.
public actor BackgroundKeeper {
    private enum Entry {
        /// Its owner lives.
        case watching(BackgroundClaim, ProcessExitWatch)
        /// Its owner ended; the keeper is opening it.
        case adopting(BackgroundClaim, Task<Void, Never>)
        /// The keeper runs its transfers.
        case running(BackgroundClaim, TransferSession)
    }

    /// By the session's folder.
    private var entries: [String: Entry] = [:]
    private let logger: Logger
    private let onChange: @Sendable () -> Void

    /// A keeper with no session.
    ///
    /// - Parameter onChange: Called when a session is claimed, released, taken over or closed.
    public init(logger: Logger, onChange: @escaping @Sendable () -> Void = {}) {
        self.logger = logger
        self.onChange = onChange
    }

    /// Whether the keeper watches or runs any session.
    public var isBusy: Bool { !entries.isEmpty }

    /// The sessions the keeper watches or runs, and whether it runs each.
    public func sessions() -> [(claim: BackgroundClaim, running: Bool)] {
        entries.values.map { entry in
            switch entry {
            case .watching(let claim, _): (claim, false)
            case .adopting(let claim, _), .running(let claim, _): (claim, true)
            }
        }.sorted { $0.claim.directory < $1.claim.directory }
    }

    /// Makes `claim`'s process the session's owner: a session the keeper runs is closed first
    /// (returning once it is), then the process is watched.
    ///
    /// - Throws: ``TransferError``: `.sessionLocked` when another live process has claimed the
    ///   session; `.invalidRequest` when the process cannot be watched.
    public func claim(_ claim: BackgroundClaim) async throws(TransferError) {
        let key = claim.directory
        if case .watching(let owner, _) = entries[key], owner.pid != claim.pid, kill(owner.pid, 0) == 0 {
            throw TransferError(.sessionLocked, "the background session is in use by process \(owner.pid)", permanent: true)
        }
        await letGo(key)
        let watch = try ProcessExitWatch(pid: claim.pid) { [weak self] in
            Task { await self?.ended(claim) }
        }
        entries[key] = .watching(claim, watch)
        logger.debug("watching a background session", metadata: ["session": "\(key)", "pid": "\(claim.pid)"])
        onChange()
    }

    /// Stops watching the session at `directory` for `pid`, which closed it for good (invalidated it).
    public func release(directory: String, pid: Int32) {
        guard case .watching(let claim, let watch) = entries[directory], claim.pid == pid else { return }
        watch.cancel()
        entries[directory] = nil
        onChange()
    }

    /// Closes every session the keeper runs and stops every watch (the agent is stopping).
    public func close() async {
        for key in entries.keys { await letGo(key) }
    }

    /// Ends what the keeper does with the session at `key`: a watch stopped, a session closed.
    private func letGo(_ key: String) async {
        while let entry = entries[key] {
            switch entry {
            case .watching(_, let watch):
                watch.cancel()
                entries[key] = nil
            case .adopting(_, let task):
                await task.value
            case .running(_, let session):
                entries[key] = nil
                await session.close()
                logger.info("handed a background session back", metadata: ["session": "\(key)"])
            }
        }
        onChange()
    }

    /// The owner of `claim` ended: the keeper takes its session over.
    private func ended(_ claim: BackgroundClaim) {
        let key = claim.directory
        guard case .watching(let current, _) = entries[key], current == claim else { return }
        entries[key] = .adopting(claim, Task { await self.adopt(claim) })
    }

    private func adopt(_ claim: BackgroundClaim) async {
        let key = claim.directory
        defer { onChange() }
        // A folder its program removed (a test's temporary one) holds nothing to go on with.
        guard FileManager.default.fileExists(atPath: key) else {
            entries[key] = nil
            return
        }
        do {
            let session = try await TransferSession.open(
                identifier: claim.identifier, directory: URL(fileURLWithPath: key, isDirectory: true),
                configuration: try claim.configuration(), logger: logger)
            entries[key] = .running(claim, session)
            logger.info(
                "took over a background session whose process ended",
                metadata: ["session": "\(key)", "pid": "\(claim.pid)"])
            let events = session.events()
            Task {
                for await event in events {
                    if case .progress = event { continue }
                    await self.closeIfDone(key, session)
                }
            }
            await closeIfDone(key, session)
        } catch {
            // Another process took it first (its own next run), or its folder cannot be used.
            logger.notice("cannot take over a background session", metadata: ["session": "\(key)", "error": "\(error)"])
            entries[key] = nil
        }
    }

    /// Closes a session the keeper runs once none of its transfers is queued or running.
    private func closeIfDone(_ key: String, _ session: TransferSession) async {
        guard case .running(_, let current) = entries[key], current === session else { return }
        let busy = await session.transfers().contains { $0.state == .queued || $0.state == .running }
        guard !busy, case .running(_, let still) = entries[key], still === session else { return }
        entries[key] = nil
        await session.close()
        logger.info("a background session's transfers ended; it waits for its next process", metadata: ["session": "\(key)"])
        onChange()
    }
}
