import Crypto
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An HTTP authentication challenge of a 401's `WWW-Authenticate` (RFC 7617 Basic, RFC 7616
/// Digest with MD5, MD5-sess or SHA-256, `qop=auth` or none), and the `Authorization` answering it.
struct HTTPChallenge: Equatable, Sendable {
    enum Scheme: Sendable { case basic, digest }

    let scheme: Scheme
    /// The challenge's parameters, names lowercased, values unquoted.
    let parameters: [String: String]

    var realm: String? { parameters["realm"] }

    /// Foundation's name of the scheme (`NSURLAuthenticationMethodHTTPBasic`, `…Digest`).
    var authenticationMethod: String {
        scheme == .basic ? NSURLAuthenticationMethodHTTPBasic : NSURLAuthenticationMethodHTTPDigest
    }

    /// The challenge to answer among a response's `WWW-Authenticate` fields: Digest (with an
    /// algorithm this type computes) before Basic; `nil` when none is either.
    static func choose(from fields: [String]) -> HTTPChallenge? {
        let challenges = fields.compactMap(parse)
        let digest = challenges.first {
            $0.scheme == .digest && $0.parameters["nonce"] != nil
                && ["md5", "md5-sess", "sha-256", "sha-256-sess"].contains(($0.parameters["algorithm"] ?? "MD5").lowercased())
                && ($0.parameters["qop"].map {
                    $0.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.contains("auth")
                } ?? true)
        }
        return digest ?? challenges.first { $0.scheme == .basic }
    }

    /// One field's challenge: its scheme, then `name=value` or `name="quoted, value"` pairs.
    static func parse(_ field: String) -> HTTPChallenge? {
        let trimmed = field.trimmingCharacters(in: .whitespaces)
        let schemeEnd = trimmed.firstIndex(of: " ") ?? trimmed.endIndex
        let scheme: Scheme
        switch trimmed[..<schemeEnd].lowercased() {
        case "basic": scheme = .basic
        case "digest": scheme = .digest
        default: return nil
        }
        var parameters: [String: String] = [:]
        var rest = Substring(trimmed[schemeEnd...])
        while let equals = rest.firstIndex(of: "=") {
            let name = rest[..<equals].trimmingCharacters(in: CharacterSet(charactersIn: " ,")).lowercased()
            rest = rest[rest.index(after: equals)...].drop { $0 == " " }
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    if character == "\\", let escaped = rest.first {
                        value.append(escaped)
                        rest = rest.dropFirst()
                    } else {
                        value.append(character)
                    }
                }
                rest = rest.dropFirst()
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            if !name.isEmpty { parameters[name] = value }
        }
        return HTTPChallenge(scheme: scheme, parameters: parameters)
    }

    /// The `Authorization` value answering this challenge with `user` and `password`, for the
    /// request `method` `target` (its path and query). `clientNonce` is fresh for each answer.
    func authorization(
        user: String, password: String, method: String, target: String, clientNonce: String = UUID().uuidString
    ) -> String {
        guard scheme == .digest, let nonce = parameters["nonce"] else {
            return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
        let algorithm = parameters["algorithm"] ?? "MD5"
        let usesSHA256 = algorithm.lowercased().hasPrefix("sha-256")
        func hash(_ text: String) -> String { usesSHA256 ? Self.sha256(text) : Self.md5(text) }
        let realm = parameters["realm"] ?? ""
        var first = hash("\(user):\(realm):\(password)")
        if algorithm.lowercased().hasSuffix("-sess") { first = hash("\(first):\(nonce):\(clientNonce)") }
        let second = hash("\(method):\(target)")
        let count = "00000001"
        let quality = parameters["qop"] != nil ? "auth" : nil
        let response =
            quality.map { hash("\(first):\(nonce):\(count):\(clientNonce):\($0):\(second)") }
            ?? hash("\(first):\(nonce):\(second)")
        var fields = [
            "username=\(Self.quoted(user))", "realm=\(Self.quoted(realm))", "nonce=\(Self.quoted(nonce))",
            "uri=\(Self.quoted(target))", "response=\"\(response)\"", "algorithm=\(algorithm)",
        ]
        if let quality { fields += ["qop=\(quality)", "nc=\(count)", "cnonce=\(Self.quoted(clientNonce))"] }
        if let opaque = parameters["opaque"] { fields.append("opaque=\(Self.quoted(opaque))") }
        return "Digest " + fields.joined(separator: ", ")
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private static func md5(_ text: String) -> String { hex(Insecure.MD5.hash(data: Data(text.utf8))) }
    private static func sha256(_ text: String) -> String { hex(SHA256.hash(data: Data(text.utf8))) }
    private static func hex<Bytes: Sequence<UInt8>>(_ digest: Bytes) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
