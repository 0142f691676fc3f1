import Foundation
import Synchronization
import TransferEngine

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Answers a 401's HTTP Basic or Digest challenge the way Foundation's task-level challenge
/// does, for data, upload and download tasks alike: the delegate's disposition, the credential
/// storage's default, and the `Authorization` field that results.
enum ChallengeAnswering {
    /// The `Authorization` field answering the challenge among `fields` (a 401's
    /// `WWW-Authenticate` values) for a `method` request of `url`, as `ask` (the delegate) says;
    /// `nil` when the 401 is the answer (no challenge this session speaks, none given, rejected).
    ///
    /// - Throws: `.cancelled` when the delegate cancels the challenge.
    static func authorization(
        challenges fields: [String], url: URL, method: String, failureResponse: HTTPURLResponse?,
        storage: URLCredentialStorage?, answered: ChallengeCounts,
        ask: @Sendable (ChallengeQuestion) async -> (URLSession.AuthChallengeDisposition, URLCredential?)
    ) async throws(TransferError) -> (name: String, value: String)? {
        guard let challenge = HTTPChallenge.choose(from: fields) else { return nil }
        let scheme = url.scheme?.lowercased() ?? "http"
        let space = URLProtectionSpace(
            host: url.host ?? "", port: url.port ?? (scheme == "https" ? 443 : 80), protocol: scheme, realm: challenge.realm,
            authenticationMethod: challenge.authenticationMethod)
        let (failures, proposed) = answered.look(space)
        let known = storage.flatMap { defaultCredential(in: $0, for: space) }
        let question = ChallengeQuestion(
            challenge: URLAuthenticationChallenge(
                protectionSpace: space, proposedCredential: proposed ?? known, previousFailureCount: failures,
                failureResponse: failureResponse, error: nil, sender: ChallengeSender()))
        let (disposition, given) = await ask(question)
        let credential: URLCredential?
        switch disposition {
        case .useCredential: credential = given
        case .performDefaultHandling: credential = failures == 0 ? known : nil
        case .cancelAuthenticationChallenge:
            throw TransferError(.cancelled, "the authentication challenge was cancelled", permanent: true)
        default: credential = nil
        }
        guard let credential, let user = credential.user, let password = credential.password else { return nil }
        answered.note(space, credential)
        if disposition == .useCredential, credential.persistence != .none, let storage {
            storage.set(credential, for: stored(space, in: storage) ?? space)
        }
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? "/"
        let target = (path.isEmpty ? "/" : path) + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
        return (
            name: "Authorization", value: challenge.authorization(user: user, password: password, method: method, target: target)
        )
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
