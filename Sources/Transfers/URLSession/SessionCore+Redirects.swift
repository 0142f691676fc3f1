import Foundation
import TransferEngine

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SessionCore {
    /// Whether a download task's transfer follows a redirect, as the task's download delegate
    /// says (its own, else the session's) in the delivery line; `true` with none to ask.
    func mayFollow(_ id: TransferID, status: Int, from: URL, to: URL) async -> Bool {
        guard let session, let number = byTransfer[id], let task = tasks[number],
            let response = HTTPURLResponse(
                url: from, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Location": to.absoluteString])
        else { return true }
        var next = task.originalRequest ?? URLRequest(url: to)
        next.url = to
        let request = next
        let box = delegateBox
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let once = AnswerOnce(continuation)
            line.add {
                guard let delegate = (task.delegate ?? box.delegate) as? any ResumableDownloadDelegate else {
                    return once.answer(true)
                }
                delegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request) {
                    once.answer($0 != nil)
                }
            }
        }
    }

    /// The fields answering a download task's 401 challenge, as the task's download delegate
    /// says (its own, else the session's); `nil` to take the 401.
    func authorize(_ id: TransferID, url: URL, challenges: [String]) async throws(TransferError) -> [String: String]? {
        guard let session, let number = byTransfer[id], let task = tasks[number], let book = books[number] else { return nil }
        let (box, line) = (delegateBox, line)
        let failure = HTTPURLResponse(
            url: url, statusCode: 401, httpVersion: "HTTP/1.1",
            headerFields: ["WWW-Authenticate": challenges.joined(separator: ", ")])
        let field = try await ChallengeAnswering.authorization(
            challenges: challenges, url: url, method: "GET", failureResponse: failure,
            storage: configuration.urlCredentialStorage, answered: book.answered
        ) { question in
            await withCheckedContinuation { continuation in
                let once = AnswerOnce<(URLSession.AuthChallengeDisposition, URLCredential?)>(continuation)
                line.add {
                    guard let delegate = (task.delegate ?? box.delegate) as? any ResumableDownloadDelegate else {
                        return once.answer((.performDefaultHandling, nil))
                    }
                    delegate.urlSession(session, task: task, didReceive: question.challenge) { once.answer(($0, $1)) }
                }
            }
        }
        return field.map { [$0.name: $0.value] }
    }
}
