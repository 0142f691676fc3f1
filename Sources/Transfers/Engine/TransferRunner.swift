import AsyncHTTPClient
import Foundation
import Logging
import NIOCore

/// What a runner needs to know about one transfer.
struct TransferJob: Sendable {
    var id: TransferID
    var url: String
    var partialPath: String
    var destinationPath: String
    var validator: Validator
}

/// What the runner learns as it goes, reported to the session.
struct Checkpoint: Sendable {
    var validator: Validator
    var expectedBytes: Int64?
    var receivedBytes: Int64
    /// Bytes flushed to the device, when this checkpoint follows a flush.
    var durableBytes: Int64?
    var contentType: String?
}

/// How a runner reports to its session.
struct TransferReporter: Sendable {
    var progress: @Sendable (_ received: Int64, _ expected: Int64?) async -> Void
    var checkpoint: @Sendable (Checkpoint) async -> Void
    var retrying: @Sendable (_ reason: String, _ delay: Duration) async -> Void
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
    let client: HTTPClient
    let policy: RetryPolicy
    let stallTimeout: Duration
    let progressInterval: Duration
    let checkpointBytes: Int64
    let time: Timekeeper
    let logger: Logger

    func run(_ job: TransferJob, report: TransferReporter) async -> RunOutcome {
        var validator = job.validator
        var failuresWithoutProgress = 0
        var restarts = 0
        // Progress means getting further than ever before: an attempt that re-receives bytes it
        // had already (after a restart) is no progress, or a server that always cuts the body
        // short would be retried for ever.
        var furthest = PartialFile.length(at: job.partialPath)
        while true {
            if Task.isCancelled { return .stopped }
            let result = await attempt(job, validator: validator, report: report)
            switch result {
            case .completed(let bytes):
                return .completed(bytes: bytes)
            case .failed(let error):
                return .failed(error)
            case .stopped:
                return .stopped
            case .restart(let reason):
                logger.info("restarting from zero", metadata: ["transfer": "\(job.id)", "reason": "\(reason)"])
                restarts += 1
                guard restarts <= 3 else {
                    return .failed(TransferError(.protocolViolation, "the server's answers are inconsistent: \(reason)", permanent: false))
                }
                validator = Validator()
                _ = truncate(job.partialPath, 0)
            case .transient(let reason, let retryAfter, let validatorSeen):
                if let validatorSeen { validator = validatorSeen }
                let reached = PartialFile.length(at: job.partialPath)
                failuresWithoutProgress = reached > furthest ? 1 : failuresWithoutProgress + 1
                furthest = max(furthest, reached)
                guard
                    let delay = policy.delay(
                        afterFailedAttempts: failuresWithoutProgress, retryAfter: retryAfter, jitter: time.jitter())
                else {
                    let code: TransferError.Code = reason.contains("HTTP") ? .serverUnavailable : .network
                    return .failed(
                        TransferError(code, "\(reason) (gave up after \(failuresWithoutProgress) attempts)", permanent: false))
                }
                logger.info("retrying", metadata: ["transfer": "\(job.id)", "reason": "\(reason)", "delay": "\(delay)"])
                await report.retrying(reason, delay)
                do { try await time.sleep(delay) } catch { return .stopped }
            }
        }
    }

    private enum AttemptResult {
        case completed(Int64)
        case failed(TransferError)
        case stopped
        case restart(String)
        case transient(reason: String, retryAfter: Duration?, validator: Validator?)
    }

    private func attempt(_ job: TransferJob, validator: Validator, report: TransferReporter) async -> AttemptResult {
        let onDisk = PartialFile.length(at: job.partialPath)
        var request = HTTPClientRequest(url: job.url)
        request.headers.add(name: "User-Agent", value: "HalfTunes/1.0 (Linux)")
        request.headers.add(name: "Accept-Encoding", value: "identity")
        for header in RangeRequest.headers(bytesOnDisk: onDisk, validator: validator) {
            request.headers.add(name: header.name, value: header.value)
        }
        let requestedOffset = RangeRequest.requestedOffset(bytesOnDisk: onDisk, validator: validator)

        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: .distantFuture, logger: logger)
        } catch {
            return failure(error, job: job, validator: nil)
        }
        let headers = response.headers
        let head = ResponseDecision.Head(
            status: Int(response.status.code),
            contentRange: headers.first(name: "Content-Range"),
            contentLength: headers.first(name: "Content-Length").flatMap { Int64($0) },
            etag: headers.first(name: "ETag"),
            retryAfter: RetryAfter.parse(headers.first(name: "Retry-After")))
        switch ResponseDecision.decide(head, requestedOffset: requestedOffset, bytesOnDisk: onDisk, validator: validator) {
        case .fail(let status):
            return .failed(.httpStatus(status, url: job.url))
        case .retry(let reason, let retryAfter):
            return .transient(reason: reason, retryAfter: retryAfter, validator: nil)
        case .restart(let reason):
            return .restart(reason)
        case .alreadyComplete(let total):
            do {
                try PartialFile(path: job.partialPath, offset: total).finish(at: job.destinationPath)
            } catch {
                return .failed(error)
            }
            return .completed(total)
        case .write(let offset, let expected):
            let responseValidator = Validator(etag: headers.first(name: "ETag"), lastModified: headers.first(name: "Last-Modified"))
            // A 206 may omit validators; then the ones that earned it still describe the bytes.
            let current = head.status == 206 && responseValidator.ifRange == nil ? validator : responseValidator
            return await receive(
                response, job: job, offset: offset, expected: expected, validator: current,
                contentType: headers.first(name: "Content-Type"), report: report)
        }
    }

    private func receive(
        _ response: HTTPClientResponse, job: TransferJob, offset: Int64, expected: Int64?, validator: Validator,
        contentType: String?, report: TransferReporter
    ) async -> AttemptResult {
        let file: PartialFile
        do { file = try PartialFile(path: job.partialPath, offset: offset) } catch { return .failed(error) }
        await report.checkpoint(
            Checkpoint(validator: validator, expectedBytes: expected, receivedBytes: offset, contentType: contentType))
        var received = offset
        var unsynced: Int64 = 0
        var lastReport = time.now()
        var reported: Int64 = -1
        func reportFinal() async {
            if received != reported { await report.progress(received, expected) }
        }
        do {
            for try await buffer in response.body {
                try file.write(buffer)
                received += Int64(buffer.readableBytes)
                unsynced += Int64(buffer.readableBytes)
                if let expected, received > expected {
                    file.close()
                    return .restart("the server sent more than the \(expected) bytes it announced")
                }
                if unsynced >= checkpointBytes {
                    try file.sync()
                    unsynced = 0
                    await report.checkpoint(
                        Checkpoint(validator: validator, expectedBytes: expected, receivedBytes: received,
                                   durableBytes: received, contentType: contentType))
                }
                let now = time.now()
                if now - lastReport >= progressInterval {
                    lastReport = now
                    reported = received
                    await report.progress(received, expected)
                }
            }
        } catch let error as TransferError {
            file.close()
            await reportFinal()
            return .failed(error)
        } catch {
            file.close()
            await reportFinal()
            if Task.isCancelled { return .stopped }
            return failure(error, job: job, validator: validator)
        }
        await reportFinal()
        if let expected, received < expected {
            file.close()
            return .transient(
                reason: "the body ended after \(received) of \(expected) bytes", retryAfter: nil, validator: validator)
        }
        do { try file.finish(at: job.destinationPath) } catch { return .failed(error) }
        return .completed(received)
    }

    private func failure(_ error: any Error, job: TransferJob, validator: Validator?) -> AttemptResult {
        if Task.isCancelled || error is CancellationError { return .stopped }
        let (reason, permanent) = NetworkFailure.classify(error, url: job.url, stallTimeout: stallTimeout)
        if permanent { return .failed(TransferError(.invalidURL, reason, permanent: true)) }
        return .transient(reason: reason, retryAfter: nil, validator: validator)
    }
}
