import Foundation

extension TransferSession {
    /// Starts queued transfers while the limits allow.
    func schedule() {
        guard !isClosed, configuration.startsTransfers else { return }
        // A transfer finishing its file (flush, rename), or finished and waiting for its
        // completion's commit, holds no connection: it does not count, up to as many as may run
        // (so files waiting for the device or the journal stay bounded too).
        let finishing = running.count - connectedHosts.count
        let settling = finishing + completing.count
        let full = connectedHosts.count + max(0, settling - scheduler.maxConcurrent) >= scheduler.maxConcurrent
        // A full session may still let requests wait for busy connections (see Scheduler).
        guard !full || scheduler.waitingPerHost > 0 else { return }
        let queued = records.queued
        guard !queued.isEmpty else { return }
        for (id, host) in scheduler.admitted(queued: queued, runningHosts: Array(connectedHosts.values), waitingOnly: full) {
            launch(id, host: host)
        }
    }

    /// Starts a queued transfer, which connects to `host` (its record's, as the queue keeps it).
    private func launch(_ id: TransferID, host: String) {
        let record: TransferRecord
        do { record = try apply(.schedule, to: id, journaled: false) } catch {
            logger.error("cannot start transfer", metadata: ["transfer": "\(id)", "error": "\(error)"])
            return
        }
        connectedHosts[id] = host
        let job = TransferJob(
            id: id, url: record.url, partialPath: record.partialFile, destinationPath: record.destination,
            validator: record.validator, headers: record.headers, tag: record.tag,
            contentEncoding: record.contentEncoding)
        let reporter = TransferReporter(
            progress: { [weak self] received, expected in await self?.didReceive(id, received: received, expected: expected) },
            persist: Self.checkpointJournaling(id, in: journal),
            checkpoint: { [weak self] checkpoint in await self?.didCheckpoint(id, checkpoint) },
            retrying: { [weak self] reason, delay in await self?.willRetry(id, reason: reason, delay: delay) },
            responded: { [weak self] response in await self?.didRespond(id, response) },
            ended: { [weak self] end in await self?.didEnd(id, end) },
            freshURL: { [weak self] status in await self?.freshURL(for: id, status: status) },
            redirect: { [weak self] status, from, to in await self?.mayFollow(id, status: status, from: from, to: to) ?? true },
            authorize: authorize(id), cookieFields: cookieFields(record.tag), cookiesReceived: cookiesReceived(record.tag))
        let runner = runner
        // Not on the session: the run starts on a free thread at once, instead of waiting for the
        // session's turn only to leave it again.
        running[id] = Task.detached {
            let outcome = await runner.run(job, report: reporter)
            await self.finish(id, outcome)
        }
    }

    /// Writes a transfer's checkpoints to `journal`, which it holds weakly, as the reporter's other
    /// closures hold the session: the HTTP client may keep a finished request's writer (and so this
    /// closure) a moment past its own shutdown, and a journal kept alive by it closed — copying its
    /// write-ahead log in and deleting it — on some thread after the process had ended, or not at
    /// all (the log left beside the journal in 10 of 1,440 busy runs of `halftunes download`).
    /// Once the journal is gone, a checkpoint fails as a journal error.
    static func checkpointJournaling(
        _ id: TransferID, in journal: TransferJournal
    ) -> @Sendable (Checkpoint) throws(TransferError) -> Void {
        { [weak journal] checkpoint throws(TransferError) in
            guard let journal else { throw TransferError(.journal, "the transfer journal is closed", permanent: false) }
            try journal.recordCheckpoint(id, checkpoint)
        }
    }

    private func didReceive(_ id: TransferID, received: Int64, expected: Int64?) {
        let known = records.update(id) { record in
            record.receivedBytes = received
            if let expected { record.expectedBytes = expected }
            return record.expectedBytes
        }
        guard let known else { return }
        hub.emit(.progress(id, received: received, expected: known))
    }

    private func didCheckpoint(_ id: TransferID, _ checkpoint: Checkpoint) {
        records.update(id) { record in
            record.etag = checkpoint.validator.etag
            record.lastModified = checkpoint.validator.lastModified
            record.expectedBytes = checkpoint.expectedBytes
            record.receivedBytes = checkpoint.receivedBytes
            record.contentType = checkpoint.contentType ?? record.contentType
            record.contentEncoding = checkpoint.contentEncoding ?? record.contentEncoding
            if let durable = checkpoint.durableBytes {
                record.durableBytes = durable
            } else {
                // A new body begins at receivedBytes: nothing past it is durable any more.
                record.durableBytes = min(record.durableBytes, checkpoint.receivedBytes)
            }
        }
        // The engine has journaled it already (synchronously, before writing any byte), or, for a
        // fresh transfer whose body stopped or ended before that was due, it goes into the journal
        // with the record's next write (paused, failed, interrupted or completed).
    }

    /// A response's last news (see ``TransferReporter/ended``).
    private func didEnd(_ id: TransferID, _ end: ResponseEnd) {
        if let checkpoint = end.checkpoint { didCheckpoint(id, checkpoint) }
        if let (received, expected) = end.progress { didReceive(id, received: received, expected: expected) }
        if end.finishing {
            // Its connection is free: the next transfer starts while the file is finished.
            freeConnection(id)
            schedule()
        }
    }

    /// A transfer's connection is free (its response has ended, or its run): its host no longer
    /// counts against the limits. Once: the run's end after its response's finds nothing to free.
    private func freeConnection(_ id: TransferID) {
        connectedHosts.removeValue(forKey: id)
    }

    private func didRespond(_ id: TransferID, _ response: TransferResponse) {
        guard records.contains(id) else { return }
        hub.emit(.responded(id, response))
    }

    /// The question a transfer's 401 challenges are put to (``setAuthorizer(_:)``), if any.
    private func authorize(_ id: TransferID) -> (@Sendable (String, [String]) async throws -> [String: String]?)? {
        guard let authorizer else { return nil }
        return { url, challenges in
            guard let url = URL(string: url) else { return nil }
            return try await authorizer(id, url, challenges)
        }
    }

    /// The cookie fields of a transfer's requests (``setCookies(_:)``), if the session keeps cookies.
    private func cookieFields(_ tag: String?) -> (@Sendable (String) -> [String: String])? {
        guard let cookies else { return nil }
        return { url in URL(string: url).map { cookies.fields(tag, $0) } ?? [:] }
    }

    /// Where a transfer's responses' `Set-Cookie` values go (``setCookies(_:)``), if anywhere.
    private func cookiesReceived(_ tag: String?) -> (@Sendable (String, [String]) -> Void)? {
        guard let cookies else { return nil }
        return { url, values in
            if let url = URL(string: url) { cookies.received(tag, url, values) }
        }
    }

    /// Asks the session's redirect question (``setRedirectApproval(_:)``), if any.
    private func mayFollow(_ id: TransferID, status: Int, from: String, to: String) async -> Bool {
        guard let approval = redirectApproval, let from = URL(string: from), let to = URL(string: to) else { return true }
        return await approval(id, status, from, to)
    }

    /// Asks the session's lookup (``setFreshURLLookup(_:)``) for another URL of a transfer whose
    /// URL answered `status`, and journals it as the transfer's URL.
    private func freshURL(for id: TransferID, status: Int) async -> String? {
        guard let lookup = freshURLLookup, let stale = records.read(id, { $0.url }).flatMap(URL.init(string:)) else {
            return nil
        }
        guard let fresh = await lookup(id, stale, status), fresh != stale, (try? Self.validate(fresh)) != nil,
            let record = records.update(
                id,
                { record in
                    record.url = fresh.absoluteString
                    return record
                })
        else { return nil }
        do { try journalSave([record]) } catch {
            logger.error("cannot journal a transfer's fresh URL", metadata: ["transfer": "\(id)", "error": "\(error)"])
        }
        if connectedHosts[id] != nil { connectedHosts[id] = record.host }
        return record.url
    }

    private func willRetry(_ id: TransferID, reason: String, delay: Duration) {
        logger.notice("transfer will retry", metadata: ["transfer": "\(id)", "reason": "\(reason)", "in": "\(delay)"])
        guard records.contains(id) else { return }
        hub.emit(.retrying(id, reason: reason, delay: delay))
    }

    private func finish(_ id: TransferID, _ outcome: RunOutcome) {
        running[id] = nil
        freeConnection(id)
        let intent = stopIntents.removeValue(forKey: id)
        guard let files = records.read(id, { (partial: $0.partialFile, destination: $0.destination) }) else { return }
        let (partial, destination) = files
        do {
            switch outcome {
            case .completed(let bytes):
                let complete: (inout TransferRecord) -> Void = { record in
                    record.receivedBytes = bytes
                    record.durableBytes = bytes
                    record.expectedBytes = bytes
                    record.setFailure(nil)
                }
                if configuration.forgetsCompletedTransfers {
                    try retire(.complete, id, update: complete)
                    hub.emit(.completed(id, location: URL(filePath: destination, directoryHint: .notDirectory)))
                } else {
                    // Journaled (then reported) with the completions that reach the session
                    // meanwhile, in one commit (see journalCompletionsSoon()).
                    try apply(.complete, to: id, reported: false, update: complete)
                    completing.append(id)
                    journalCompletionsSoon()
                }
            case .failed(let error):
                // A file set aside for crashing its finisher keeps its bytes (and its count).
                if error.isPermanent, error.code != .finishingInterrupted { unlink(partial) }
                // Reported whether or not the journal could record it (a full disk fails both).
                defer { hub.emit(.failed(id, error: error)) }
                try apply(.fail, to: id) { record in
                    record.receivedBytes = PartialFile.length(at: partial)
                    record.setFailure(error)
                }
            case .stopped:
                switch intent {
                case .pause:
                    try apply(.pause, to: id) { $0.receivedBytes = PartialFile.length(at: partial) }
                case .cancel:
                    try discard(id)
                case .interrupt, nil:
                    try apply(.interrupt, to: id) { $0.receivedBytes = PartialFile.length(at: partial) }
                }
            }
        } catch {
            logger.error("cannot record the end of a transfer", metadata: ["transfer": "\(id)", "error": "\(error)"])
        }
        schedule()
    }

    /// How long after one commit of completions the next waits, gathering the completions that
    /// arrive meanwhile. Files that finish one after another (a batch of small previews, a few
    /// every millisecond) then share commits: 2,000 files of 2 KiB took some 1,500 commits of the
    /// journal without it, under 800 with it. A completion after a quiet spell is journaled at once.
    static let completionSpacing = Duration.microseconds(500)

    /// Has the completions in ``completing`` journaled: at once (once the jobs already waiting for
    /// the session have run) when the last such commit is at least ``completionSpacing`` ago, else
    /// when that much time has passed since it. Completions never hold places new downloads could
    /// take: when as many wait as may run, they are journaled now.
    func journalCompletionsSoon() {
        if completing.count >= scheduler.maxConcurrent {
            journalCompletions()
            return
        }
        guard completing.count == 1 else { return }  // a commit is on its way
        let wait = lastCompletionCommit.map { $0 + Self.completionSpacing - .now } ?? .zero
        // The session is held weakly meanwhile: one closed (which journals what is left) and let
        // go is gone at once, its journal closed with it.
        Task { [weak self] in
            if wait > .zero { try? await Task.sleep(for: wait) }
            await self?.journalCompletions()
        }
    }

    /// Journals the completions waiting in ``completing`` in one commit, then reports each
    /// (`stateChanged`, then `completed`) and wakes its waiters: nothing is reported completed
    /// before its journal row says so. A transfer forgotten meanwhile is skipped.
    func journalCompletions() {
        guard !completing.isEmpty else { return }
        // Each record copied once, for the journal's write (read in place, not copied to be looked at).
        let done = completing.compactMap { id in
            records.read(id) { $0.transferState == .completed ? copy $0 : nil } ?? nil
        }
        completing.removeAll()
        lastCompletionCommit = .now
        // Their places are free now, whatever happens to the commit.
        defer { schedule() }
        do { try journalSave(done) } catch {
            logger.error("cannot record the end of transfers", metadata: ["count": "\(done.count)", "error": "\(error)"])
            return
        }
        for record in done {
            let id = record.transferID
            hub.emit(.stateChanged(id, .completed))
            resumeWaiters(id)
            hub.emit(.completed(id, location: URL(filePath: record.destination, directoryHint: .notDirectory)))
        }
    }
}
