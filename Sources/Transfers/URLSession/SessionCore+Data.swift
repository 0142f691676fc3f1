import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SessionCore {
    /// Starts a data task's request on its own Swift task (the body is read there, not on the core).
    func startData(_ task: ResumableDataTask) {
        let number = task.taskIdentifier
        guard dataTasks[number] != nil, dataRuns[number] == nil else { return }
        guard let engine else {
            let error = openFailure ?? URLError.make(.cancelled, "the session is not open", url: task.originalRequest?.url)
            return endData(task, data: nil, error: error)
        }
        guard let request = task.originalRequest, let url = request.url else {
            return endData(task, data: nil, error: URLError.make(.unsupportedURL, "the request has no URL", url: nil))
        }
        let headers = configuration.headers(for: request)
        let timeout = Duration.milliseconds(Int64(max(0.001, min(configuration.timeout(for: request), 1e9)) * 1000))
        let reading = DataReading(task: task, session: session, line: line, box: delegateBox)
        let body = task.upload ?? request.httpBody.map { DataRequestBody.bytes($0) }
        if case .file(let file) = body, !FileManager.default.isReadableFile(atPath: file.path) {
            let missing = !FileManager.default.fileExists(atPath: file.path)
            let reason = "cannot read the file to upload, \(file.path): " + (missing ? "there is none" : "permission denied")
            return endData(
                task, data: nil, error: URLError.make(missing ? .fileDoesNotExist : .noPermissionsToReadFile, reason, url: url))
        }
        let cookies = RequestCookies(configuration: configuration, request: request)
        let credentials = configuration.urlCredentialStorage
        dataRuns[number] = Task {
            let (data, error) = await reading.run(
                engine: engine, url: url, method: request.httpMethod ?? "GET", headers: headers, body: body,
                timeout: timeout, cookies: cookies, credentials: credentials)
            self.endData(task, data: data, error: error)
        }
    }

    /// Cancels a data task's request; its reader ends it with `URLError.cancelled`.
    func cancelData(_ task: ResumableDataTask) {
        if let run = dataRuns[task.taskIdentifier] {
            run.cancel()
        } else {
            endData(task, data: nil, error: URLError.make(.cancelled, "cancelled", url: task.originalRequest?.url))
        }
    }

    /// Ends a data task: its completion handler, or the delegate's completion call, after every
    /// call delivered for it before.
    func endData(_ task: ResumableDataTask, data: Data?, error: URLError?) {
        guard dataTasks.removeValue(forKey: task.taskIdentifier) != nil else { return }
        dataRuns[task.taskIdentifier] = nil
        let response = task.status.withLock { status -> URLResponse? in
            status.state = .completed
            status.error = error
            return status.response
        }
        deliverToSession { delegate, session in
            if let handler = task.completion {
                handler(error == nil ? data ?? Data() : nil, response, error)
            } else {
                task.dataDelegate(or: delegate)?.urlSession(
                    session, task: task, didCompleteWithError: error)
            }
        }
        if invalidating { Task { await self.finalizeIfDone() } }
    }
}

/// The reading of one data task's response: the head, the delegate's word on it, then the body
/// piece by piece, each delegate call in the session's delivery line.
struct DataReading: Sendable {
    let task: ResumableDataTask
    let session: ResumableURLSession?
    let line: DeliveryLine
    let box: DelegateBox

    /// The task's data delegate, unless a completion handler takes its calls.
    private var delegate: (any ResumableDataDelegate)? {
        task.completion == nil ? task.dataDelegate(or: box.delegate) : nil
    }

    /// The body (collected when a completion handler wants it) and the error the task ends with.
    @concurrent
    func run(
        engine: TransferSession, url: URL, method: String, headers: [String: String], body: DataRequestBody?,
        timeout: Duration, cookies: RequestCookies, credentials: URLCredentialStorage?
    ) async -> (Data?, URLError?) {
        do {
            var hops = DataHops()
            hops.fields = { cookies.fields(for: $0) }
            hops.received = { cookies.store($0, from: $1) }
            hops.redirect = { head, from, to in await redirect(head, from: from, to: to) }
            hops.sent = { piece, sent, total in self.sent(piece, sent, total) }
            let answered = ChallengeCounts()
            hops.authorize = { head, url, method throws(TransferError) in
                try await authorize(head, url: url, method: method, storage: credentials, answered: answered)
            }
            let (head, stream) = try await engine.dataRequest(
                url: url, method: method, headers: headers, body: body, timeout: timeout, decompressing: true, hops: hops)
            let response = Self.response(head, url: stream.url)
            let length = head.headers.first { $0.name.lowercased() == "content-length" }
            let expected = length.flatMap { Int64($0.value) } ?? -1
            task.status.withLock { ($0.response, $0.expected) = (response, expected) }
            task.progress.totalUnitCount = expected
            if let response, let disposition = await disposition(for: response), disposition != .allow {
                guard disposition == .cancel else {
                    return (nil, URLError.make(.unsupportedURL, "only .allow and .cancel are offered as dispositions", url: url))
                }
                return (nil, URLError.make(.cancelled, "cancelled by the delegate's response disposition", url: url))
            }
            var collected = Data()
            for try await piece in stream {
                await task.waitWhileSuspended()
                try Task.checkCancellation()
                let count = task.status.withLock { status -> Int64 in
                    status.received += Int64(piece.count)
                    return status.received
                }
                task.progress.completedUnitCount = count
                if task.completion != nil {
                    collected.append(piece)
                    // A per-call delegate (data(for:delegate:)) is told of each piece too.
                    if let session, task.delegate is any ResumableDataDelegate {
                        line.add {
                            (task.delegate as? any ResumableDataDelegate)?.urlSession(session, dataTask: task, didReceive: piece)
                        }
                    }
                } else if let session {
                    let box = box
                    line.add {
                        task.dataDelegate(or: box.delegate)?.urlSession(
                            session, dataTask: task, didReceive: piece)
                    }
                }
            }
            return (collected, nil)
        } catch let error as TransferError {
            return (nil, URLError.download(error, url: url))
        } catch {
            return (nil, URLError.make(.cancelled, "cancelled", url: url))
        }
    }

    /// Counts a piece of the request's body sent and tells the task's data delegate.
    private func sent(_ piece: Int64, _ sent: Int64, _ total: Int64) {
        task.status.withLock { ($0.sent, $0.expectedToSend) = (sent, total) }
        guard let session else { return }
        let (task, box) = (task, box)
        line.add {
            task.dataDelegate(or: box.delegate)?.urlSession(
                session, task: task, didSendBodyData: piece, totalBytesSent: sent, totalBytesExpectedToSend: total)
        }
    }

    /// An HTTP response of a head.
    static func response(_ head: DataResponseHead, url: URL) -> HTTPURLResponse? {
        var fields: [String: String] = [:]
        for (name, value) in head.headers { fields[name] = fields[name].map { "\($0), \(value)" } ?? value }
        return HTTPURLResponse(url: url, statusCode: head.status, httpVersion: "HTTP/1.1", headerFields: fields)
    }

    /// Whether to follow a redirect from `from` to `to`, as the task's data delegate says (no
    /// delegate: yes).
    private func redirect(_ head: DataResponseHead, from: URL, to: URL) async -> Bool {
        guard session != nil, let response = Self.response(head, url: from), task.dataDelegate(or: box.delegate) != nil else {
            return true
        }
        var next = task.originalRequest ?? URLRequest(url: to)
        next.url = to
        let request = next
        return await ask(otherwise: true) { delegate, session, task, answer in
            delegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request) {
                answer($0 != nil)
            }
        }
    }

    /// What the delegate says of the response (`nil`: no delegate asked, the body is read).
    private func disposition(for response: URLResponse) async -> URLSession.ResponseDisposition? {
        guard delegate != nil, session != nil else { return nil }
        return await ask(otherwise: .allow) { delegate, session, task, answer in
            delegate.urlSession(session, dataTask: task, didReceive: response) { answer($0) }
        }
    }

    /// Asks the task's data delegate, in the delivery line, for an answer it gives through a
    /// completion handler (taken once); `fallback` when there is no delegate by then.
    func ask<Value: Sendable>(
        otherwise fallback: Value,
        _ call:
            @escaping @Sendable (
                any ResumableDataDelegate, ResumableURLSession, ResumableDataTask, @escaping @Sendable (Value) -> Void
            ) -> Void
    ) async -> Value {
        guard let session else { return fallback }
        let (box, task) = (box, task)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            let once = AnswerOnce(continuation)
            line.add {
                guard let delegate = task.dataDelegate(or: box.delegate) else { return once.answer(fallback) }
                call(delegate, session, task) { once.answer($0) }
            }
        }
    }
}

/// A delegate's answer, taken once: a second call of its completion handler is ignored.
final class AnswerOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = Mutex(continuation) }

    func answer(_ value: Value) {
        continuation.withLock { taken in
            defer { taken = nil }
            return taken
        }?.resume(returning: value)
    }
}
