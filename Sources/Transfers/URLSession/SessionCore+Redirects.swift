import Foundation
import TransferEngine

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SessionCore {
    /// Whether a download task's transfer follows a redirect, as the task's download delegate
    /// says (its own, else the session's) in the delivery line; `true` with none to ask.
    func mayFollow(_ id: TransferID, status: Int, from: URL, to: URL) async -> Bool {
        guard let number = await taskNumber(of: id), let task = tasks[number],
            let response = HTTPURLResponse(
                url: from, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Location": to.absoluteString])
        else { return true }
        var next = task.originalRequest ?? URLRequest(url: to)
        next.url = to
        let request = next
        return await ask(task, otherwise: true) { delegate, session, answer in
            delegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request) {
                answer($0 != nil)
            }
        }
    }

    /// The fields answering a download task's 401 challenge, as the task's download delegate
    /// says (its own, else the session's); `nil` to take the 401.
    func authorize(_ id: TransferID, url: URL, challenges: [String]) async throws(TransferError) -> [String: String]? {
        guard let number = await taskNumber(of: id), let task = tasks[number], let book = books[number] else { return nil }
        let failure = HTTPURLResponse(
            url: url, statusCode: 401, httpVersion: "HTTP/1.1",
            headerFields: ["WWW-Authenticate": challenges.joined(separator: ", ")])
        let field = try await ChallengeAnswering.authorization(
            challenges: challenges, url: url, method: "GET", failureResponse: failure,
            storage: configuration.urlCredentialStorage, answered: book.answered
        ) { question in
            await self.ask(task, otherwise: (URLSession.AuthChallengeDisposition.performDefaultHandling, nil)) {
                delegate, session, answer in
                delegate.urlSession(session, task: task, didReceive: question.challenge) { answer(($0, $1)) }
            }
        }
        return field.map { [$0.name: $0.value] }
    }

    /// Puts a question to a download task's delegate (its own, else the session's) in the
    /// delivery line, and waits for its answer, taken once; `fallback` with no delegate to ask.
    private func ask<Value: Sendable>(
        _ task: ResumableDownloadTask, otherwise fallback: Value,
        _ call:
            @escaping @Sendable (any ResumableDownloadDelegate, ResumableURLSession, @escaping @Sendable (Value) -> Void)
            -> Void
    ) async -> Value {
        guard let session else { return fallback }
        let box = delegateBox
        return await withCheckedContinuation { continuation in
            let once = AnswerOnce(continuation)
            line.add {
                guard let delegate = (task.delegate ?? box.delegate) as? any ResumableDownloadDelegate else {
                    return once.answer(fallback)
                }
                call(delegate, session) { once.answer($0) }
            }
        }
    }
}
