import Foundation
import NIOSSL

/// The certificate authorities a client trusts: the system's, plus those in the PEM files given
/// (a company's own authority, a test's), as curl's `--cacert` adds them. Verification is never
/// turned off.
public struct TrustRoots: Sendable, Hashable {
    /// Extra authorities' PEM files, each checked to hold at least one certificate.
    public let files: [String]

    /// The system's authorities alone.
    public static let system = TrustRoots(checkedFiles: [])

    private init(checkedFiles: [String]) { files = checkedFiles }

    /// The system's authorities and those in `files`.
    ///
    /// - Throws: `TrustRootsError` naming a file that cannot be read or holds no PEM certificate.
    public init(adding files: [String]) throws(TrustRootsError) {
        for file in files {
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw TrustRootsError(message: "cannot read the certificate file \(file)")
            }
            let certificates = try? NIOSSLCertificate.fromPEMFile(file)
            guard let certificates, !certificates.isEmpty else {
                throw TrustRootsError(message: "\(file) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
            }
        }
        self.init(checkedFiles: files.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
    }

    /// The roots chosen by an explicit file (`--cacert`), else `HALFTUNES_CA_BUNDLE`, else the system's.
    public static func resolve(
        explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(TrustRootsError) -> TrustRoots {
        guard let file = [explicit, environment["HALFTUNES_CA_BUNDLE"]].compactMap({ $0 }).first(where: { !$0.isEmpty })
        else { return .system }
        return try TrustRoots(adding: [file])
    }

    /// A client TLS configuration that verifies fully against these roots; `nil` for the
    /// system's alone (the HTTP client's default).
    public var tlsConfiguration: TLSConfiguration? {
        guard !files.isEmpty else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.additionalTrustRoots = files.map { .file($0) }
        return configuration
    }
}

/// A trust-root file that cannot be used.
public struct TrustRootsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One line for the user.
    public let message: String
    public var description: String { message }
}
