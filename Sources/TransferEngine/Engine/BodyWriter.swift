import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import NetworkBasics

/// Receives one response on the event loop and writes its body straight into the partial file.
///
/// Contract: the journal knows a response's validator before any byte of a resumable body is
/// relied on — the head's checkpoint is journaled synchronously, or, for a fresh transfer (from
/// byte 0), at the latest once ``unjournaledBytes`` or a progress interval have arrived, before a
/// flush, or with the transfer's record; bytes a crash leaves with no validator are fetched again,
/// never spliced. Periodic flushes (every `checkpointBytes`) run off the event loop, one at a time;
/// a failed one fails the response. Updates reach the session in order through one stream.
/// All state is touched on the request's event loop only.
final class BodyWriter: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = Int64

    /// Why the writer stopped the response early.
    enum Stop: Error {
        /// The head says the body is not to be written (see the decision).
        case decided(ResponseDecision)
        /// The server sent more than it announced.
        case tooLong(expected: Int64)
        /// The redirect to `location` (as the server wrote it) was refused, and its body is not
        /// a file to deliver.
        case redirectRefused(location: String, status: Int)
        /// The 401's challenge is answered by these fields: the request goes again with them.
        case authorize([String: String])
    }

    let job: TransferJob
    let requestedOffset: Int64
    let bytesOnDisk: Int64
    let validator: Validator
    let checkpointBytes: Int64
    let durability: Durability
    /// Whether the head is reported (``Update/response(_:)``).
    let reportsResponses: Bool
    let progressInterval: Duration
    let time: Timekeeper
    let persist: @Sendable (Checkpoint) throws(TransferError) -> Void
    /// Tells the session of an update (on a task of the writer's, in order).
    let forward: @Sendable (Update) async -> Void

    /// What the writer tells the session as it goes.
    enum Update: Sendable {
        case progress(received: Int64, expected: Int64?)
        case checkpoint(Checkpoint)
        case response(TransferResponse)
    }

    private(set) var received: Int64 = 0
    private(set) var expected: Int64?
    private(set) var writtenValidator: Validator?
    private(set) var startOffset: Int64 = 0
    private(set) var file: PartialFile?
    /// The `Content-Encoding` of the body being written (`identity` when none), once its head came.
    private(set) var contentEncoding: String?
    private var unsynced: Int64 = 0
    private var lastReport: Duration = .zero
    private var eventLoop: (any EventLoop)?
    /// The flush running off the event loop, if any.
    private var flushing: EventLoopFuture<Void>?
    /// Whether a flush was ever started (set on the event loop, before the response's future
    /// completes: read after it succeeded, it needs no trip to the loop).
    private var flushStarted = false
    /// Why a flush failed, if one did.
    private var flushFailure: TransferError?
    /// The head's checkpoint of a transfer with no validator yet, not journaled yet (see the type's
    /// notes for when it is).
    private var headCheckpoint: Checkpoint?
    /// The head's checkpoint, not yet told to the session: it goes ahead of the next update, or
    /// the runner reports it once the response is over. Journaled, unless the transfer was fresh
    /// and its body stopped (or ended) before its checkpoint was due: then the session journals it
    /// with the transfer's record.
    private var deferredCheckpoint: Checkpoint?

    /// The head's checkpoint the session has not heard of yet, if any (read after the response is
    /// over: the event loop is done with the writer).
    var unreportedCheckpoint: Checkpoint? { deferredCheckpoint ?? headCheckpoint }

    /// How many bytes of a fresh transfer's body may arrive before its validator is journaled:
    /// what a crash may make it fetch again (besides the progress interval's worth).
    static let unjournaledBytes: Int64 = 1 << 20
    /// The stream of updates and the task that forwards them, from the first update on.
    private var outlet: (feed: AsyncStream<Update>.Continuation, forwarder: Task<Void, Never>)?
    /// The session's bandwidth cap, when it has one.
    private let cap: BandwidthCap?
    /// Whether an error status's body is written as the file (``TransferSessionConfiguration/deliversErrorBodies``).
    private let deliversErrorBodies: Bool
    /// The largest file written (``TransferSessionConfiguration/maximumFileSize``).
    private let maximumFileSize: Int64?
    /// Whether a redirect (its status and `Location`) is followed: asked before the body is
    /// read, so that a refused one's body can be the file when error bodies are delivered.
    private let follows: @Sendable (_ status: Int, _ location: String) async -> Bool
    /// The fields answering a 401's challenges, `nil` to take the 401 (see ``TransferReporter``).
    private let authorize: (@Sendable (_ challenges: [String]) async throws -> [String: String]?)?
    /// Takes each head's `Set-Cookie` values, when the session keeps cookies.
    private let cookiesReceived: (@Sendable (_ values: [String]) -> Void)?

    init(
        job: TransferJob, requestedOffset: Int64, bytesOnDisk: Int64, validator: Validator, checkpointBytes: Int64,
        durability: Durability, reportsResponses: Bool,
        progressInterval: Duration, time: Timekeeper, cap: BandwidthCap? = nil, deliversErrorBodies: Bool = false,
        maximumFileSize: Int64? = nil,
        follows: @escaping @Sendable (_ status: Int, _ location: String) async -> Bool = { _, _ in true },
        authorize: (@Sendable (_ challenges: [String]) async throws -> [String: String]?)? = nil,
        cookiesReceived: (@Sendable (_ values: [String]) -> Void)? = nil,
        persist: @escaping @Sendable (Checkpoint) throws(TransferError) -> Void,
        forward: @escaping @Sendable (Update) async -> Void
    ) {
        self.cap = cap
        self.deliversErrorBodies = deliversErrorBodies
        self.maximumFileSize = maximumFileSize
        self.follows = follows
        self.authorize = authorize
        self.cookiesReceived = cookiesReceived
        self.job = job
        self.requestedOffset = requestedOffset
        self.bytesOnDisk = bytesOnDisk
        self.validator = validator
        self.checkpointBytes = checkpointBytes
        self.durability = durability
        self.reportsResponses = reportsResponses
        self.progressInterval = progressInterval
        self.time = time
        self.persist = persist
        self.forward = forward
    }

    func didReceiveHead(task: HTTPClient.Task<Int64>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let headers = head.headers
        let summary = ResponseDecision.Head(
            status: Int(head.status.code),
            contentRange: headers.first(name: "Content-Range"),
            contentLength: headers.first(name: "Content-Length").flatMap { Int64($0) },
            etag: headers.first(name: "ETag"),
            retryAfter: RetryAfter.parse(headers.first(name: "Retry-After")),
            location: headers.first(name: "Location"))
        let decision = ResponseDecision.decide(
            summary, requestedOffset: requestedOffset, bytesOnDisk: bytesOnDisk, validator: validator,
            deliversErrorBodies: deliversErrorBodies)
        if let cookiesReceived, case let values = headers["Set-Cookie"], !values.isEmpty { cookiesReceived(values) }
        let challenges = summary.status == 401 ? headers["WWW-Authenticate"] : []
        if let authorize, !challenges.isEmpty {
            // Asked before the body is read: answered, the request goes again with the fields.
            let asking = task.eventLoop.makePromise(of: [String: String]?.self)
            asking.completeWithTask { try await authorize(challenges) }
            return asking.futureResult.flatMap { fields in
                if let fields { return task.eventLoop.makeFailedFuture(Stop.authorize(fields)) }
                return self.proceed(task: task, head: head, summary: summary, decision: decision)
            }
        }
        return proceed(task: task, head: head, summary: summary, decision: decision)
    }

    /// Acts on the head's decision: a redirect asked about, a body written, or the response stopped.
    private func proceed(
        task: HTTPClient.Task<Int64>, head: HTTPResponseHead, summary: ResponseDecision.Head, decision: ResponseDecision
    ) -> EventLoopFuture<Void> {
        if case .redirect(let location, let status) = decision {
            // A hop on the way, not the transfer's response, unless it is refused.
            let asking = task.eventLoop.makePromise(of: Bool.self)
            let follows = follows
            asking.completeWithTask { await follows(status, location) }
            return asking.futureResult.flatMap { follow in
                if follow { return task.eventLoop.makeFailedFuture(Stop.decided(decision)) }
                guard self.deliversErrorBodies else {
                    return task.eventLoop.makeFailedFuture(Stop.redirectRefused(location: location, status: status))
                }
                return self.begin(task: task, head: head, summary: summary, offset: 0, total: summary.contentLength)
            }
        }
        guard case .write(let offset, let total) = decision else {
            report(head, bodyOffset: nil, expectedTotal: nil)
            return task.eventLoop.makeFailedFuture(Stop.decided(decision))
        }
        return begin(task: task, head: head, summary: summary, offset: offset, total: total)
    }

    /// Opens the partial file at `offset` and journals the head's checkpoint: the body is written.
    private func begin(
        task: HTTPClient.Task<Int64>, head: HTTPResponseHead, summary: ResponseDecision.Head, offset: Int64, total: Int64?
    ) -> EventLoopFuture<Void> {
        let headers = head.headers
        report(head, bodyOffset: offset, expectedTotal: total)
        if let limit = maximumFileSize, let total, total > limit {
            return task.eventLoop.makeFailedFuture(TransferError.fileTooLarge(job.url, announced: total, limit: limit))
        }
        let fromResponse = Validator(etag: headers.first(name: "ETag"), lastModified: headers.first(name: "Last-Modified"))
        // A 206 may omit validators; then the ones that earned it still describe the bytes.
        let current = summary.status == 206 && fromResponse.ifRange == nil ? validator : fromResponse
        let coding = headers.first(name: "Content-Encoding") ?? "identity"
        if offset > 0, let before = job.contentEncoding, before.lowercased() != coding.lowercased() {
            // The rest of another representation would not continue these bytes.
            let reason = "the server changed the body's Content-Encoding from \(before) to \(coding)"
            return task.eventLoop.makeFailedFuture(Stop.decided(.restart(reason: reason)))
        }
        do {
            file = try PartialFile(path: job.partialPath, offset: offset, flushes: durability.flushes)
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        received = offset
        startOffset = offset
        expected = total
        writtenValidator = current
        lastReport = time.now()
        eventLoop = task.eventLoop
        let checkpoint = Checkpoint(
            validator: current, expectedBytes: total, receivedBytes: offset,
            contentType: headers.first(name: "Content-Type"),
            contentEncoding: coding)
        contentEncoding = checkpoint.contentEncoding
        if validator.ifRange == nil, expected != nil {
            headCheckpoint = checkpoint  // journaled with the first body part (see there)
        } else {
            do throws(TransferError) { try persist(checkpoint) } catch {
                return task.eventLoop.makeFailedFuture(error)
            }
            deferredCheckpoint = checkpoint
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Int64>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        guard let file else { return task.eventLoop.makeSucceededVoidFuture() }
        if let flushFailure { return task.eventLoop.makeFailedFuture(flushFailure) }
        let count = Int64(buffer.readableBytes)
        if let limit = maximumFileSize, received + count > limit {
            return task.eventLoop.makeFailedFuture(TransferError.fileTooLarge(job.url, announced: nil, limit: limit))
        }
        let now = time.now()
        let reporting = now - lastReport >= progressInterval
        if let checkpoint = headCheckpoint {
            let arrived = received + count
            // The whole body here: its completion is journaled next, nothing before.
            let whole = arrived == expected
            let due =
                reporting || arrived - startOffset >= Self.unjournaledBytes
                || (file.flushes && unsynced + count >= checkpointBytes)
            if whole || due {
                headCheckpoint = nil
                if !whole {
                    do throws(TransferError) { try persist(checkpoint) } catch {
                        return task.eventLoop.makeFailedFuture(error)
                    }
                }
                deferredCheckpoint = checkpoint
            }
        }
        do {
            try file.write(buffer)
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        received += count
        unsynced += count
        if let expected, received > expected {
            return task.eventLoop.makeFailedFuture(Stop.tooLong(expected: expected))
        }
        if reporting {
            lastReport = now
            send(.progress(received: received, expected: expected))
        }
        if file.flushes, unsynced >= checkpointBytes, flushing == nil {
            unsynced = 0
            flush(file, upTo: received, on: task.eventLoop)
        }
        // Under a cap, the next read waits until the bucket has refilled what this part took.
        if let wait = cap?.take(Int(count)) {
            return task.eventLoop.scheduleTask(in: wait) {}.futureResult
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Int64>) throws -> Int64 {
        // A head's checkpoint still unjournaled (an empty body, or one that ended before it was
        // due) is the runner's to report (``unreportedCheckpoint``), and the completion journals it.
        received
    }

    /// Reports the head (its headers joined by name), when the session reports responses.
    private func report(_ head: HTTPResponseHead, bodyOffset: Int64?, expectedTotal: Int64?) {
        guard reportsResponses else { return }
        var fields: [String: String] = [:]
        for (name, value) in head.headers { fields[name] = fields[name].map { "\($0), \(value)" } ?? value }
        send(
            .response(
                TransferResponse(
                    status: Int(head.status.code), headers: fields, bodyOffset: bodyOffset, expectedTotal: expectedTotal)))
    }

    /// Waits for the flush still running, if any (the file must stay open until then), and
    /// returns why a flush failed, if one did. Call once the response is over.
    ///
    /// - Parameter succeeded: Whether the response's future succeeded. Then every callback has
    ///   run before it (the future's value is `didFinishRequest`'s), so a writer that never
    ///   started a flush (every file that flushes nothing, every small file) has nothing to wait
    ///   for, and says so without a trip to the event loop.
    func settle(succeeded: Bool) async -> TransferError? {
        if succeeded, !flushStarted { return nil }
        guard let eventLoop else { return nil }
        // One trip to the event loop when no flush is running (every small file); two otherwise.
        guard let (pending, failure) = try? await eventLoop.submit({ (self.flushing, self.flushFailure) }).get()
        else { return nil }
        guard let pending else { return failure }
        _ = try? await pending.get()
        return try? await eventLoop.submit { self.flushFailure }.get()
    }

    /// Flushes the first `length` bytes on a blocking-pool thread, then journals them as durable.
    private func flush(_ file: PartialFile, upTo length: Int64, on loop: any EventLoop) {
        let checkpoint = Checkpoint(
            validator: writtenValidator ?? validator, expectedBytes: expected, receivedBytes: length,
            durableBytes: length, contentType: nil)
        let (descriptor, path) = (file.descriptor, file.path)
        flushStarted = true
        flushing = NIOThreadPool.singleton.runIfActive(eventLoop: loop) {
            try PartialFile.sync(descriptor: descriptor, path: path)
        }
        .flatMap { self.journal(checkpoint, on: loop) }
        .always { result in
            self.flushing = nil
            if case .failure(let error) = result {
                self.flushFailure =
                    error as? TransferError ?? TransferError(.fileSystem, "cannot flush \(path): \(error)", permanent: false)
            }
        }
    }

    /// Journals `checkpoint` now, then lets the session's view catch up.
    private func journal(_ checkpoint: Checkpoint, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        do throws(TransferError) { try persist(checkpoint) } catch {
            return eventLoop.makeFailedFuture(error)
        }
        send(.checkpoint(checkpoint))
        return eventLoop.makeSucceededVoidFuture()
    }

    /// Sends an update to the session (after the head's checkpoint, if it has not gone yet),
    /// starting the stream and its task with the first.
    private func send(_ update: Update) {
        if outlet == nil {
            let (updates, feed) = AsyncStream<Update>.makeStream()
            let forward = forward
            outlet = (feed, Task { for await update in updates { await forward(update) } })
        }
        if let checkpoint = deferredCheckpoint {
            deferredCheckpoint = nil
            outlet?.feed.yield(.checkpoint(checkpoint))
        }
        outlet?.feed.yield(update)
    }

    /// Ends the updates and waits until the session has had each. Call after ``settle(succeeded:)``:
    /// no update follows it.
    func finishUpdates() async {
        guard let outlet else { return }
        outlet.feed.finish()
        await outlet.forwarder.value
    }
}
