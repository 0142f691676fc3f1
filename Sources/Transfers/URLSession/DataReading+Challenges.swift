import Foundation
import TransferEngine

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension DataReading {
    /// The `Authorization` answering a 401's HTTP Basic or Digest challenge, as the task's data
    /// delegate says (``ResumableDataDelegate/urlSession(_:task:didReceive:completionHandler:)``);
    /// `nil` when the 401 is the answer (no challenge this session speaks, none given, rejected).
    ///
    /// - Throws: `.cancelled` when the delegate cancels the challenge.
    func authorize(
        _ head: DataResponseHead, url: URL, method: String, storage: URLCredentialStorage?, answered: ChallengeCounts
    ) async throws(TransferError) -> [(name: String, value: String)]? {
        let fields = head.headers.filter { $0.name.lowercased() == "www-authenticate" }.map(\.value)
        let field = try await ChallengeAnswering.authorization(
            challenges: fields, url: url, method: method, failureResponse: Self.response(head, url: url), storage: storage,
            answered: answered
        ) { question in
            await ask(otherwise: (URLSession.AuthChallengeDisposition.performDefaultHandling, nil)) {
                delegate, session, task, answer in
                delegate.urlSession(session, task: task, didReceive: question.challenge) { answer(($0, $1)) }
            }
        }
        return field.map { [$0] }
    }
}
