import Foundation
import NetworkBasics
import SystemBasics

extension TransferSession {
    /// Queues a download of `url` to `destination`; it starts as soon as the limits allow.
    ///
    /// Bytes stream to `destination` + `.part`; when complete and checked, that file is renamed to
    /// `destination` (replacing what was there).
    ///
    /// - Parameters:
    ///   - url: The resource (http or https).
    ///   - destination: Where the finished file goes (an absolute file URL).
    ///   - tag: A label of the caller's, kept with the transfer (like `taskDescription`).
    ///   - headers: Header fields to send with every request of this transfer (see ``RequestHeaders``).
    /// - Throws: `.invalidURL` for a URL that is not http(s) with a host; `.invalidRequest` for a
    ///   header the engine owns; `.invalidState` when a transfer to the same destination is already
    ///   under way.
    public func start(
        url: URL, destination: URL, tag: String? = nil, headers: [String: String] = [:]
    ) throws(TransferError) -> TransferID {
        try start([TransferRequest(url: url, destination: destination, tag: tag, headers: headers)])[0]
    }

    /// Queues many downloads at once: what ``start(url:destination:tag:headers:)`` does for each,
    /// with one journal commit for the whole batch. All or nothing: a request that cannot start
    /// (see that method's errors, and two requests for one destination) starts none of them.
    ///
    /// - Returns: The transfers' ids, in the requests' order.
    public func start(_ requests: [TransferRequest]) throws(TransferError) -> [TransferID] {
        try ensureOpen()
        var prepared: [(request: TransferRequest, path: String, headers: [String: String])] = []
        prepared.reserveCapacity(requests.count)
        var destinations = Set<String>(minimumCapacity: requests.count)
        for request in requests {
            try Self.validate(request.url)
            let headers = try RequestHeaders.validated(request.headers)
            let path = try ensureFree(request)
            guard destinations.insert(path).inserted else {
                throw TransferError(.invalidState, "two transfers cannot download to \(path)", permanent: true)
            }
            prepared.append((request, path, headers))
        }
        var records: [TransferRecord] = []
        records.reserveCapacity(prepared.count)
        // A batch downloads into a few folders: each is created (or found) once.
        var folders = Set<String>()
        for (request, path, headers) in prepared {
            let folder = PartialFile.folder(of: path)
            if folders.insert(folder).inserted { try createFolder(URL(filePath: folder, directoryHint: .isDirectory)) }
            records.append(
                try newRecord(
                    url: request.url, destination: path, partialFile: path + ".part",
                    validator: Validator(), expectedBytes: nil, tag: request.tag, headers: headers))
        }
        try add(records)
        return records.map(\.transferID)
    }

    /// Pauses a transfer, keeping its partial file, and returns its resume data.
    ///
    /// Waits until the transfer has stopped writing, so the resume data's byte count is exact.
    public func pause(_ id: TransferID) async throws(TransferError) -> ResumeData {
        let record = try record(id)
        switch record.transferState {
        case .running:
            if let task = running[id] {
                stopIntents[id] = .pause
                task.cancel()
                await task.value
            }
        case .queued:
            try apply(.pause, to: id)
        case .paused, .failed:
            break
        case .completed, .cancelled:
            throw .invalidState(id, record.transferState, "pause")
        }
        let current = try self.record(id)
        guard current.transferState == .paused || current.transferState == .failed else {
            throw .invalidState(id, current.transferState, "pause")
        }
        return resumeData(for: current)
    }

    /// Resumes a paused (or failed) transfer; it queues and continues from the bytes on disk.
    /// Resuming a queued or running transfer does nothing.
    public func resume(_ id: TransferID) throws(TransferError) {
        try ensureOpen()
        let record = try record(id)
        guard record.transferState == .paused || record.transferState == .failed else {
            if record.transferState == .queued || record.transferState == .running { return }
            throw .invalidState(id, record.transferState, "resume")
        }
        if record.failure?.isPermanent == true {
            // Nothing of it was kept; start from scratch.
            try apply(.resume, to: id) {
                $0.setFailure(nil)
                $0.receivedBytes = 0
                $0.etag = nil
                $0.lastModified = nil
            }
        } else {
            try apply(.resume, to: id) { $0.setFailure(nil) }
        }
        schedule()
    }

    /// Resumes a download from resume data (from ``pause(_:)``, possibly of another process).
    ///
    /// The bytes on disk are kept only if the server confirms, through `If-Range`, that the
    /// resource has not changed; otherwise it is downloaded whole.
    @discardableResult
    public func resume(with data: ResumeData) throws(TransferError) -> TransferID {
        try ensureOpen()
        try Self.validate(data.url)
        if let existing = records.transfer(writing: data.destination.path) {
            try resume(existing)
            return existing
        }
        guard data.bytesOnDisk >= 0, data.partialFile.isFileURL else {
            throw TransferError(.invalidResumeData, "the resume data does not describe a partial file", permanent: true)
        }
        let headers = try RequestHeaders.validated(data.headers ?? [:])
        // Bytes past what the resume data vouches for may belong to anything: drop them.
        let onDisk = PartialFile.length(at: data.partialFile.path)
        if onDisk > data.bytesOnDisk { _ = truncate(data.partialFile.path, off_t(data.bytesOnDisk)) }
        try createFolder(data.destination.deletingLastPathComponent())
        let record = try newRecord(
            url: data.url, destination: data.destination.path, partialFile: data.partialFile.path,
            validator: data.validator, expectedBytes: data.expectedBytes, tag: data.tag, headers: headers)
        try add([record])
        return record.transferID
    }

    /// Stops a transfer and hands it over as resume data: the session forgets it, and its partial
    /// file stays on disk for whoever holds the resume data (``resume(with:)``, here or in another
    /// process). What URLSession's `cancel(byProducingResumeData:)` does.
    ///
    /// Waits until the transfer has stopped writing, so the resume data's byte count is exact;
    /// with ``Durability/powerLoss`` the bytes are flushed first, so the data holds after a power cut.
    public func detach(_ id: TransferID) async throws(TransferError) -> ResumeData {
        let data = try await pause(id)
        if configuration.durability.flushes, data.bytesOnDisk > 0 { try PartialFile.sync(path: data.partialFile.path) }
        records[id] = nil
        try journalDelete([id])
        resumeWaiters(id)
        return data
    }

    /// Changes the caller's label of a transfer (journaled, so it survives a restart).
    public func setTag(_ tag: String?, for id: TransferID) throws(TransferError) {
        let changed = records.update(id) { record in
            record.tag = tag
            return record
        }
        guard let changed else { throw .unknown(id) }
        try journalSave([changed])
    }

    /// Sets how a transfer goes on when its URL goes stale (a CDN's signed URL expired, answered
    /// 403, 404 or 410): `lookup` is asked, once a run, for another URL of the same resource, and
    /// the transfer goes on from it (journaled as its URL), its bytes on disk kept when that
    /// server confirms their version through `If-Range`, downloaded whole otherwise. With no
    /// lookup, or `nil` from it, the transfer fails with the status.
    public func setFreshURLLookup(_ lookup: (@Sendable (TransferID, _ stale: URL, _ status: Int) async -> URL?)?) {
        freshURLLookup = lookup
    }

    /// Sets the question asked before a transfer follows a redirect: the transfer, the 3xx status,
    /// the URL that answered it and the next; `false` fails the transfer with the 3xx (an
    /// `httpStatus` error carrying it), or, where error bodies are delivered
    /// (``TransferSessionConfiguration/deliversErrorBodies``), makes the 3xx's body the file.
    /// With none, every redirect is followed.
    public func setRedirectApproval(_ approval: (@Sendable (TransferID, Int, _ from: URL, _ to: URL) async -> Bool)?) {
        redirectApproval = approval
    }

    /// Answers an HTTP authentication challenge: the transfer, the URL that answered 401, and the
    /// response's `WWW-Authenticate` values; it returns the fields to send again with (an
    /// `Authorization`), or `nil` to take the 401 as the answer, or throws to fail the transfer.
    public typealias Authorizer =
        @Sendable (TransferID, _ url: URL, _ challenges: [String]) async throws(TransferError) -> [String: String]?

    /// Sets who answers a 401 that carries a `WWW-Authenticate` challenge. The fields it gives are
    /// sent on the transfer's later requests to the same origin (scheme, host and port) in this
    /// run, never to another origin a redirect leads to; it is asked again when they are refused
    /// (at most 10 times a run, then the 401 stands). With none, a 401 is an answer like any other.
    public func setAuthorizer(_ authorizer: Authorizer?) {
        self.authorizer = authorizer
    }

    /// A session's cookies, kept by its caller: the fields to send with a transfer's request to a
    /// URL (a `Cookie`), and the `Set-Cookie` values each response brings, a redirect's included.
    /// Each call names the transfer by its tag (known before ``start(url:destination:tag:headers:)``
    /// returns its identifier).
    public struct Cookies: Sendable {
        /// The fields for a request of the transfer (its tag) to the URL (none: `[:]`).
        public var fields: @Sendable (_ tag: String?, URL) -> [String: String]
        /// Takes the `Set-Cookie` values of a response of the transfer (its tag) from the URL.
        public var received: @Sendable (_ tag: String?, URL, [String]) -> Void

        /// Cookies from these two calls (made on the network's threads: they must not wait).
        public init(
            fields: @escaping @Sendable (_ tag: String?, URL) -> [String: String],
            received: @escaping @Sendable (_ tag: String?, URL, [String]) -> Void
        ) {
            (self.fields, self.received) = (fields, received)
        }
    }

    /// Sets who keeps the session's cookies; with none, the engine sends and keeps none.
    public func setCookies(_ cookies: Cookies?) {
        self.cookies = cookies
    }

    /// Cancels a transfer and deletes its partial file. The transfer is forgotten.
    public func cancel(_ id: TransferID) async throws(TransferError) {
        let record = try record(id)
        switch record.transferState {
        case .running:
            if let task = running[id] {
                stopIntents[id] = .cancel
                task.cancel()
                await task.value
            }
        case .queued, .paused, .failed:
            try discard(id)
        case .completed, .cancelled:
            throw .invalidState(id, record.transferState, "cancel")
        }
    }

    /// Forgets a transfer that has finished (completed, failed or cancelled), leaving files alone.
    ///
    /// The session forgets it at once; the journal with its next write (another transfer's
    /// change, or the close), in that write's commit: a batch of downloads, each forgotten once
    /// filed, costs one commit a download fewer. After a crash, a transfer forgotten in the
    /// moments before may be back, as it was; forgetting it again is harmless.
    public func forget(_ id: TransferID) throws(TransferError) {
        if let refusal = try forget([id])[id] { throw refusal }
    }

    /// Forgets many finished transfers in one call: for each, what forgetting one does.
    ///
    /// - Returns: Why each transfer of `ids` that was not forgotten was not (unknown, or still
    ///   under way); the others are forgotten.
    /// - Throws: When the journal cannot be written (the deletes then wait for its next write).
    @discardableResult
    public func forget(_ ids: [TransferID]) throws(TransferError) -> [TransferID: TransferError] {
        var refusals: [TransferID: TransferError] = [:]
        for id in ids {
            guard let state = records.read(id, { $0.transferState }) else {
                refusals[id] = .unknown(id)
                continue
            }
            guard ![.queued, .running, .paused].contains(state) else {
                refusals[id] = .invalidState(id, state, "forget")
                continue
            }
            records.remove(id)
            forgotten.append(id)
        }
        if forgotten.count >= Self.forgottenBatch { try journalDelete([]) }
        return refusals
    }

    /// Forgotten transfers whose deletes wait for another write, at most.
    static let forgottenBatch = 64

    // MARK: - Internals

    func resumeData(for record: TransferRecord) -> ResumeData {
        ResumeData(
            url: URL(string: record.url)!, destination: URL(filePath: record.destination, directoryHint: .notDirectory),
            partialFile: URL(filePath: record.partialFile, directoryHint: .notDirectory),
            bytesOnDisk: PartialFile.length(at: record.partialFile), expectedBytes: record.expectedBytes,
            validator: record.validator, tag: record.tag, headers: record.headers.isEmpty ? nil : record.headers)
    }

    /// Deletes the partial file and the transfer, telling subscribers it was cancelled.
    func discard(_ id: TransferID) throws(TransferError) {
        guard let record = records[id] else { return }
        unlink(record.partialFile)
        FinishingTries(partialPath: record.partialFile).clear()
        records[id] = nil
        try journalDelete([id])
        hub.emit(.stateChanged(id, .cancelled))
        resumeWaiters(id)
    }

    /// Creates a destination folder (and its parents) unless it exists.
    func createFolder(_ folder: URL) throws(TransferError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw TransferError(
                .fileSystem, "cannot create \(folder.path): \(FolderProblem.reason(creating: folder, failedWith: error))",
                permanent: true)
        }
    }

    /// A queued transfer's record (its folder created by the caller), not yet in the session.
    private func newRecord(
        url: URL, destination: String, partialFile: String, validator: Validator,
        expectedBytes: Int64?, tag: String?, headers: [String: String]
    ) throws(TransferError) -> TransferRecord {
        let now = Date()
        var record = TransferRecord(
            id: TransferID.make().rawValue, seq: records.nextSequence(), url: url.absoluteString,
            destination: destination,
            partialFile: partialFile, tag: tag, state: TransferState.queued.rawValue,
            receivedBytes: PartialFile.resumableLength(at: partialFile, validator: validator), durableBytes: 0,
            expectedBytes: expectedBytes,
            etag: validator.etag, lastModified: validator.lastModified, contentType: nil, errorCode: nil,
            errorMessage: nil, errorPermanent: nil, createdAt: now, updatedAt: now)
        record.headers = headers
        return record
    }

    /// Journals new transfers (one commit), then queues them.
    private func add(_ new: [TransferRecord]) throws(TransferError) {
        try journalSave(new)
        records.reserveCapacity(adding: new.count)
        for record in new {
            records[record.transferID] = record
            hub.emit(.stateChanged(record.transferID, .queued))
        }
        schedule()
    }

    private func ensureOpen() throws(TransferError) {
        if isClosed { throw TransferError(.invalidState, "the transfer session is closed", permanent: true) }
    }

    /// Checks that no transfer writes to `request`'s destination, and returns its path.
    private func ensureFree(_ request: TransferRequest) throws(TransferError) -> String {
        let path = request.destinationPath
        guard path.hasPrefix("/") else {
            let given = request.otherDestination?.description ?? path
            throw TransferError(.fileSystem, "the destination must be an absolute file path, not \(given)", permanent: true)
        }
        if let busy = records.transfer(writing: path) {
            throw TransferError(.invalidState, "transfer \(busy.rawValue) is already downloading to \(path)", permanent: true)
        }
        return path
    }

    static func validate(_ url: URL) throws(TransferError) {
        if let problem = URLPolicy.problem(with: url) { throw .invalidURL(url.absoluteString, problem) }
    }
}
