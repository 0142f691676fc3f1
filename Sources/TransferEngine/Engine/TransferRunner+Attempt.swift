import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NetworkBasics

extension TransferRunner {
    /// One request of `job` (a hop of `trail`); a redirect is the result only once followed.
    func attempt(
        _ job: TransferJob, validator: Validator, trail: RedirectTrail, report: TransferReporter
    ) async -> AttemptResult {
        let onDisk = PartialFile.resumableLength(at: job.partialPath, validator: validator)
        var headers = HTTPHeaders()
        for (name, value) in job.headers { headers.add(name: name, value: value) }
        if !headers.contains(name: "Cookie"), let fields = report.cookieFields?(job.url) {
            for (name, value) in fields { headers.add(name: name, value: value) }
        }
        if !headers.contains(name: "User-Agent") { headers.add(name: "User-Agent", value: "HalfTunes/1.0 (Linux)") }
        // Bytes as stored, unless the caller asked for a coding (then decoded at the finish).
        if !headers.contains(name: "Accept-Encoding") { headers.add(name: "Accept-Encoding", value: "identity") }
        for header in RangeRequest.headers(bytesOnDisk: onDisk, validator: validator) {
            headers.add(name: header.name, value: header.value)
        }
        logger.debug(
            "requesting",
            metadata: ["transfer": "\(job.id)", "onDisk": "\(onDisk)", "ifRange": "\(validator.ifRange ?? "none")"])
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(url: job.url, method: .GET, headers: headers)
        } catch {
            return await failure(error, job: job, validator: nil)
        }
        let writer = BodyWriter(
            job: job, requestedOffset: RangeRequest.requestedOffset(bytesOnDisk: onDisk, validator: validator),
            bytesOnDisk: onDisk, validator: validator, checkpointBytes: checkpointBytes, durability: durability,
            reportsResponses: reportsResponses, progressInterval: progressInterval, time: time,
            cap: cap, deliversErrorBodies: deliversErrorBodies, maximumFileSize: maximumFileSize,
            follows: { status, location in
                // A hop that cannot be followed is not asked about: the trail fails it.
                var trail = trail
                guard case .success(let next) = trail.next(from: job.url, location: location) else { return true }
                return await report.redirect(status, job.url, next)
            },
            authorize: authorizer(report, url: job.url),
            cookiesReceived: cookiesReceived(report, url: job.url),
            persist: report.persist,
            forward: { update in
                switch update {
                case .progress(let received, let expected): await report.progress(received, expected)
                case .checkpoint(let checkpoint): await report.checkpoint(checkpoint)
                case .response(let response): await report.responded(response)
                }
            })
        let task = clients.client(for: job.url).execute(
            request: request, delegate: writer, deadline: nil, logger: Self.clientLogger(for: logger))
        let outcome: Result<Int64, any Error>
        do {
            let received = try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
            outcome = .success(received)
        } catch {
            outcome = .failure(error)
        }
        let flushFailure = await writer.settle(succeeded: outcome.isSuccess)
        await writer.finishUpdates()
        // Everything below runs after the event loop (and the flush) are done with the writer.
        // A complete body's file stays open: finishing it needs no second open.
        let received = writer.received
        let complete = outcome.isSuccess && flushFailure == nil && writer.expected.map { received == $0 } ?? true
        if !complete { writer.file?.close() }
        let arrived = writer.file != nil && (received > writer.startOffset || outcome.isSuccess)
        // A failed flush fails the transfer, unless it was stopped meanwhile (then it ends below).
        let failedFlush = Task.isCancelled ? nil : flushFailure
        // Every byte is here and the file is next (the `.success` case below).
        let finishing = outcome.isSuccess && failedFlush == nil && writer.expected.map { received >= $0 } ?? true
        if writer.unreportedCheckpoint != nil || arrived || finishing {
            await report.ended(
                ResponseEnd(
                    checkpoint: writer.unreportedCheckpoint, progress: arrived ? (received, writer.expected) : nil,
                    finishing: finishing))
        }
        if let failedFlush { return .failed(failedFlush) }
        switch outcome {
        case .failure(BodyWriter.Stop.decided(let decision)):
            return await act(on: decision, job: job)
        case .failure(BodyWriter.Stop.redirectRefused(let location, let status)):
            let next = URL(string: location, relativeTo: URL(string: job.url))?.absoluteString ?? location
            return .failed(
                TransferError(
                    .httpStatus, "the redirect to \(next) was not followed (HTTP \(status))", permanent: true,
                    httpStatus: status))
        case .failure(BodyWriter.Stop.authorize(let fields)):
            return .authorize(fields)
        case .failure(BodyWriter.Stop.tooLong(let expected)):
            return .restart("the server sent more than the \(expected) bytes it announced")
        case .failure(let error as TransferError):
            return .failed(error)
        case .failure(let error as HTTPClientError) where error == .getConnectionFromPoolTimeout && !Task.isCancelled:
            logger.debug("waited a connect timeout for a busy connection", metadata: ["transfer": "\(job.id)"])
            return .waitAgain
        case .failure(let error):
            if Task.isCancelled { return .stopped }
            return await failure(error, job: job, validator: writer.writtenValidator)
        case .success:
            if let expected = writer.expected, received < expected {
                return .transient(
                    reason: "the body ended after \(received) of \(expected) bytes", status: nil, retryAfter: nil,
                    validator: writer.writtenValidator)
            }
            var job = job
            job.contentEncoding = writer.contentEncoding ?? job.contentEncoding
            return await finish(job, file: writer.file, length: received)
        }
    }

    /// What to do when the head says not to write the body.
    private func act(on decision: ResponseDecision, job: TransferJob) async -> AttemptResult {
        switch decision {
        case .fail(let status):
            return .failed(.httpStatus(status, url: job.url))
        case .retry(let status, let retryAfter):
            return .transient(
                reason: "the server answered HTTP \(status)", status: status, retryAfter: retryAfter, validator: nil)
        case .restart(let reason):
            return .restart(reason)
        case .alreadyComplete(let total):
            return await finish(job, length: total)
        case .redirect(let location, _):
            return .redirect(location)
        case .write:
            return .restart("unexpected decision")
        }
    }

    private func failure(_ error: any Error, job: TransferJob, validator: Validator?) async -> AttemptResult {
        if Task.isCancelled || error is CancellationError { return .stopped }
        // A certificate or handshake that fails now fails the same way next time: for good, said plainly.
        if TLSProblem.isTLSFailure(error), let url = URL(string: job.url),
            let (problem, server) = await TLSProblem.diagnose(error, url: url, proxies: clients.proxies)
        {
            return .failed(NetworkFailure.tlsError(problem, server: server))
        }
        let (reason, permanent) = NetworkFailure.classify(error, url: job.url, stallTimeout: stallTimeout)
        if permanent { return .failed(NetworkFailure.permanentError(error, reason: reason)) }
        return .transient(reason: reason, status: nil, retryAfter: nil, validator: validator)
    }

    /// The writer's question for a 401's challenges of `url`, when the session has someone to ask.
    private func authorizer(
        _ report: TransferReporter, url: String
    ) -> (@Sendable ([String]) async throws -> [String: String]?)? {
        guard let ask = report.authorize else { return nil }
        return { challenges in try await ask(url, challenges) }
    }

    /// The writer's way to the session's cookies, when it keeps them.
    private func cookiesReceived(_ report: TransferReporter, url: String) -> (@Sendable ([String]) -> Void)? {
        guard let received = report.cookiesReceived else { return nil }
        return { values in received(url, values) }
    }

    /// A URL's origin: scheme, host and port.
    static func origin(_ url: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        let (scheme, host) = (components.scheme?.lowercased() ?? "", components.host?.lowercased() ?? "")
        return "\(scheme)://\(host):\(components.port.map(String.init) ?? "")"
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
