import Foundation
import Synchronization
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
        guard let challenge = HTTPChallenge.choose(from: fields) else { return nil }
        let scheme = url.scheme?.lowercased() ?? "http"
        let space = URLProtectionSpace(
            host: url.host ?? "", port: url.port ?? (scheme == "https" ? 443 : 80), protocol: scheme, realm: challenge.realm,
            authenticationMethod: challenge.authenticationMethod)
        let (failures, proposed) = answered.look(space)
        let stored = storage.flatMap { Self.defaultCredential(in: $0, for: space) }
        let question = ChallengeQuestion(
            challenge: URLAuthenticationChallenge(
                protectionSpace: space, proposedCredential: proposed ?? stored, previousFailureCount: failures,
                failureResponse: Self.response(head, url: url), error: nil, sender: ChallengeSender()))
        let (disposition, given) = await ask(otherwise: (URLSession.AuthChallengeDisposition.performDefaultHandling, nil)) {
            delegate, session, task, answer in
            delegate.urlSession(session, task: task, didReceive: question.challenge) { answer(($0, $1)) }
        }
        let credential: URLCredential?
        switch disposition {
        case .useCredential: credential = given
        case .performDefaultHandling: credential = failures == 0 ? stored : nil
        case .cancelAuthenticationChallenge:
            throw TransferError(.cancelled, "the authentication challenge was cancelled", permanent: true)
        default: credential = nil
        }
        guard let credential, let user = credential.user, let password = credential.password else { return nil }
        answered.note(space, credential)
        if disposition == .useCredential, credential.persistence != .none, let storage {
            storage.set(credential, for: Self.stored(space, in: storage) ?? space)
        }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? "/"
        let target = (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
        let value = challenge.authorization(user: user, password: password, method: method, target: target)
        return [(name: "Authorization", value: value)]
    }

    /// The storage's default credential for a protection space with the same host, port, scheme,
    /// realm and method (Linux's Foundation finds only the very object it was given).
    static func defaultCredential(in storage: URLCredentialStorage, for space: URLProtectionSpace) -> URLCredential? {
        guard let stored = stored(space, in: storage) else { return nil }
        return storage.defaultCredential(for: stored) ?? storage.credentials(for: stored)?.values.first
    }

    private static func stored(_ space: URLProtectionSpace, in storage: URLCredentialStorage) -> URLProtectionSpace? {
        storage.allCredentials.keys.first {
            $0.host.lowercased() == space.host.lowercased() && $0.port == space.port && $0.protocol == space.protocol
                && $0.realm == space.realm && $0.authenticationMethod == space.authenticationMethod
        }
    }
}

/// The answers one task gave, per protection space: how many, and the last credential (the
/// next challenge's `previousFailureCount` and `proposedCredential`).
final class ChallengeCounts: Sendable {
    private let answers = Mutex<[String: (count: Int, last: URLCredential)]>([:])

    func look(_ space: URLProtectionSpace) -> (Int, URLCredential?) {
        answers.withLock { $0[Self.key(space)].map { ($0.count, $0.last) } ?? (0, nil) }
    }

    func note(_ space: URLProtectionSpace, _ credential: URLCredential) {
        answers.withLock { $0[Self.key(space), default: (0, credential)] = (($0[Self.key(space)]?.count ?? 0) + 1, credential) }
    }

    private static func key(_ space: URLProtectionSpace) -> String {
        "\(space.protocol ?? "")://\(space.host):\(space.port) \(space.realm ?? "") \(space.authenticationMethod)"
    }
}

/// A challenge handed to the delegate queue (Foundation's class is not marked `Sendable`; it is
/// not changed after it is made).
struct ChallengeQuestion: @unchecked Sendable {
    let challenge: URLAuthenticationChallenge
}

/// The sender Foundation's challenge needs: answers come through the completion handler instead.
final class ChallengeSender: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}
