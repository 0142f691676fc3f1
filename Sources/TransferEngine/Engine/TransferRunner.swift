import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NetworkBasics

/// What a runner needs to know about one transfer.
struct TransferJob: Sendable {
    var id: TransferID
    var url: String
    var partialPath: String
    var destinationPath: String
    var validator: Validator
    /// The caller's header fields (already checked by ``RequestHeaders``).
    var headers: [String: String] = [:]
    /// The caller's tag (for the finisher).
    var tag: String?
    /// The `Content-Encoding` of the bytes already on disk, as journaled (see ``ContentDecoding``).
    var contentEncoding: String?
}

/// What the runner learns as it goes, reported to the session.
struct Checkpoint: Sendable {
    var validator: Validator
    var expectedBytes: Int64?
    var receivedBytes: Int64
    /// Bytes flushed to the device, when this checkpoint follows a flush.
    var durableBytes: Int64?
    var contentType: String?
    /// A new body's `Content-Encoding` (`identity` when it has none); `nil` at a later checkpoint.
    var contentEncoding: String?
}

/// How a runner reports to its session.
struct TransferReporter: Sendable {
    var progress: @Sendable (_ received: Int64, _ expected: Int64?) async -> Void
    /// Writes a checkpoint to the journal at once (called on the event loop).
    var persist: @Sendable (Checkpoint) throws(TransferError) -> Void
    /// Tells the session's in-memory view about a checkpoint already persisted (or, for a fresh
    /// transfer's head, one the session journals with the transfer's record; see ``BodyWriter``).
    var checkpoint: @Sendable (Checkpoint) async -> Void
    var retrying: @Sendable (_ reason: String, _ delay: Duration) async -> Void
    /// A response head arrived (before its body is written).
    var responded: @Sendable (TransferResponse) async -> Void
    /// A response is over: its last news in one call (one trip to the session for every small
    /// file), including whether its file is now being finished.
    var ended: @Sendable (ResponseEnd) async -> Void
    /// The URL answered 403, 404 or 410 (the status given): another URL of the same resource to
    /// go on from (journaled by the session), or `nil` when there is none.
    var freshURL: @Sendable (_ status: Int) async -> String? = { _ in nil }
    /// Whether to follow a redirect (its status, the URL that answered it, the next), asked
    /// before its body is read: `false` fails the transfer with the 3xx, or makes its body the
    /// file where error bodies are delivered.
    var redirect: @Sendable (_ status: Int, _ from: String, _ to: String) async -> Bool = { _, _, _ in true }
    /// The fields answering a 401's challenges (`WWW-Authenticate` values) of the URL, `nil` to
    /// take the 401; none: a 401 is an answer like any other.
    var authorize: (@Sendable (_ url: String, _ challenges: [String]) async throws -> [String: String]?)? = nil
    /// The cookie fields for a request to the URL (called before each request).
    var cookieFields: (@Sendable (_ url: String) -> [String: String])? = nil
    /// A response's `Set-Cookie` values from the URL (called on the event loop, with each head).
    var cookiesReceived: (@Sendable (_ url: String, _ values: [String]) -> Void)? = nil
}

/// A response's last news, in the order the session takes it in.
struct ResponseEnd: Sendable {
    /// The head's checkpoint, when no update carried it yet.
    var checkpoint: Checkpoint?
    /// The bytes received, when the file has them.
    var progress: (received: Int64, expected: Int64?)?
    /// Whether every byte has arrived and the connection is free: the file is being finished
    /// (flushed, renamed), and the session lets the next transfer start meanwhile.
    var finishing: Bool
}

/// How a run ended.
enum RunOutcome: Sendable {
    /// The file is complete and renamed into place.
    case completed(bytes: Int64)
    /// It failed; the session keeps the partial file unless the error is permanent.
    case failed(TransferError)
    /// The task was cancelled (pause, cancel or shutdown); the partial file is as it was.
    case stopped
}

/// Downloads one transfer to the end: attempts, range resumes, retries with backoff.
struct TransferRunner: Sendable {
    /// The engine's HTTP clients (one per proxy).
    let clients: HTTPClientSet
    let policy: RetryPolicy
    let stallTimeout: Duration
    let progressInterval: Duration
    let checkpointBytes: Int64
    let durability: Durability
    let reportsResponses: Bool
    let finisher: TransferFinisher?
    let time: Timekeeper
    let logger: Logger
    /// Flushes the destination folders, one flush for the files finished together.
    let folders = FolderFlusher()
    /// Finishers side by side, a suspect's alone (``FinishingGate``).
    let finishing = FinishingGate()
    /// The cap on all transfers' bytes a second together.
    let cap: BandwidthCap
    /// Whether an error status's body is written as the file.
    var deliversErrorBodies = false
    /// Redirects one request follows before failing.
    var maxRedirects = 10
    /// Whether a transfer that began at a public host is kept on the public internet
    /// (``TransferSessionConfiguration/keepsPublicTransfersPublic``).
    var keepsPublicTransfersPublic = false
    /// The largest file a transfer may download (``TransferSessionConfiguration/maximumFileSize``).
    var maximumFileSize: Int64?

    /// The logger AsyncHTTPClient gets: the engine's own when it shows debug messages (the only
    /// levels the client logs at), otherwise one that drops everything. The client tags each
    /// request's logger with its ids, which costs even when no message passes the level.
    static func clientLogger(for logger: Logger) -> Logger { logger.logLevel <= .debug ? logger : silent }

    private static let silent = Logger(label: "halftunes.transfer.http", factory: { _ in SwiftLogNoOpLogHandler() })

    func run(_ job: TransferJob, report: TransferReporter) async -> RunOutcome {
        var job = job
        var validator = job.validator
        // A stale URL is looked up again once a run; the bytes on disk stay, and the new URL's
        // server keeps them or not through If-Range, as for any resume.
        var refreshed = false
        var failuresWithoutProgress = 0
        var restarts = 0
        // Progress means getting further than ever before: an attempt that re-receives bytes it
        // had already (after a restart) is no progress, or a server that always cuts the body
        // short would be retried for ever. Bytes with no validator are never resumed (the first
        // attempt starts from 0), so they are no head start either, and need no look at the disk.
        var furthest = PartialFile.resumableLength(at: job.partialPath, validator: validator)
        // Each request starts at the transfer's URL and follows its redirects hop by hop.
        var hop = job
        var trail = RedirectTrail(maxRedirects: maxRedirects)
        // The fields answering a 401's challenge, for the origin that asked, and how many answers.
        var authorization: (origin: String, fields: [String: String])?
        var answers = 0
        let confined =
            keepsPublicTransfersPublic && URL(string: job.url)?.host.map { HostClass($0) == .publicNetwork } == true
        while true {
            if Task.isCancelled { return .stopped }
            if confined, let url = URL(string: hop.url),
                let refusal = await NetworkReach.refusal(of: url, resolving: clients.proxies.server(for: url) == nil)
            {
                return .failed(TransferError(.invalidURL, refusal, permanent: true))
            }
            var request = hop
            // Credentials go only to the origin that asked for them.
            if let (origin, fields) = authorization, Self.origin(hop.url) == origin {
                for (name, value) in fields {
                    request.headers = request.headers.filter { $0.key.lowercased() != name.lowercased() }
                    request.headers[name] = value
                }
            }
            let result = await attempt(request, validator: validator, trail: trail, report: report)
            if case .authorize(let fields) = result {
                answers += 1
                guard answers <= 10 else { return .failed(.httpStatus(401, url: hop.url)) }
                authorization = (Self.origin(hop.url), fields)
                continue
            }
            if case .redirect(let location) = result {
                switch trail.next(from: hop.url, location: location) {
                case .success(let next):
                    // (The writer asked whether to follow it: see `attempt`.)
                    logger.debug("redirected", metadata: ["transfer": "\(job.id)", "to": "\(next)"])
                    hop.url = next
                    continue
                case .failure(let error):
                    return .failed(error)
                }
            }
            hop = job
            trail = RedirectTrail(maxRedirects: maxRedirects)
            switch result {
            case .completed(let bytes):
                return .completed(bytes: bytes)
            case .failed(let error):
                if !refreshed, error.code == .httpStatus, let status = error.httpStatus, Self.staleStatuses.contains(status) {
                    refreshed = true
                    if let fresh = await report.freshURL(status) {
                        logger.info("stale URL: going on from a fresh one", metadata: ["transfer": "\(job.id)"])
                        job.url = fresh
                        hop = job
                        continue
                    }
                }
                return .failed(error)
            case .stopped:
                return .stopped
            case .waitAgain:
                continue
            case .redirect, .authorize:
                continue  // followed above
            case .restart(let reason):
                logger.info("restarting from zero", metadata: ["transfer": "\(job.id)", "reason": "\(reason)"])
                restarts += 1
                guard restarts <= 3 else {
                    return .failed(
                        TransferError(.protocolViolation, "the server's answers are inconsistent: \(reason)", permanent: false))
                }
                validator = Validator()
                _ = truncate(job.partialPath, 0)
            case .transient(let reason, let status, let retryAfter, let validatorSeen):
                if let validatorSeen { validator = validatorSeen }
                let reached = PartialFile.length(at: job.partialPath)
                failuresWithoutProgress = reached > furthest ? 1 : failuresWithoutProgress + 1
                furthest = max(furthest, reached)
                guard
                    let delay = policy.delay(
                        afterFailedAttempts: failuresWithoutProgress, retryAfter: retryAfter, jitter: time.jitter())
                else {
                    return .failed(
                        TransferError(
                            status == nil ? .network : .serverUnavailable,
                            "\(reason) (gave up after \(failuresWithoutProgress) attempts)", permanent: false, httpStatus: status)
                    )
                }
                logger.info("retrying", metadata: ["transfer": "\(job.id)", "reason": "\(reason)", "delay": "\(delay)"])
                await report.retrying(reason, delay)
                do { try await time.sleep(delay) } catch { return .stopped }
            }
        }
    }

    /// The statuses with which a CDN says a (signed, expiring) URL has gone stale.
    static let staleStatuses: Set<Int> = [403, 404, 410]

    enum AttemptResult {
        case completed(Int64)
        case failed(TransferError)
        case stopped
        /// The request waited for a busy connection of its host for as long as a connection may
        /// take: it never reached the server. It waits again, as a new request.
        case waitAgain
        case restart(String)
        /// The server redirected the request to `Location`, and it is followed.
        case redirect(String)
        /// The server asked for credentials, and these fields answer it: the same request again.
        case authorize([String: String])
        /// A failure worth retrying; `status` is the HTTP status when the server answered one.
        case transient(reason: String, status: Int?, retryAfter: Duration?, validator: Validator?)
    }

}
