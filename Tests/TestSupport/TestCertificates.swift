import Crypto
import DemoCatalog
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import NIOSSL
import X509

/// A certificate authority made for one test run, and server certificates it signs: HTTPS on
/// 127.0.0.1 with no network and no files but those the test writes.
public struct TestAuthority: Sendable {
    private let key: Certificate.PrivateKey
    /// The authority's own certificate.
    public let certificate: Certificate

    /// A new authority.
    public init(name: String = "HalfTunes Test Authority") throws {
        let signing = P256.Signing.PrivateKey()
        key = Certificate.PrivateKey(signing)
        let subject = try DistinguishedName { CommonName(name) }
        let now = Date()
        certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(signing.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86400, issuer: subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: key)
    }

    /// Writes the authority's certificate as PEM (what `--cacert` takes) and returns the file.
    @discardableResult
    public func writePEM(to file: URL) throws -> URL {
        try certificate.serializeAsPEM().pemString.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// A server's TLS configuration with a certificate for `names`, valid from `validFrom` to
    /// `validUntil`, signed by this authority (or by itself when `selfSigned`).
    public func serverTLS(
        names: [String] = ["localhost"], validFrom: Date = Date() - 3600, validUntil: Date = Date() + 86400,
        selfSigned: Bool = false
    ) throws -> TLSConfiguration {
        let serverKey = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(names.first ?? "server") }
        let issuer = selfSigned ? subject : certificate.subject
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(serverKey.publicKey),
            notValidBefore: validFrom, notValidAfter: validUntil, issuer: issuer, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                SubjectAlternativeNames(names.map { .dnsName($0) })
            },
            issuerPrivateKey: selfSigned ? Certificate.PrivateKey(serverKey) : key)
        let chain = try NIOSSLCertificate(bytes: Array(try leaf.serializeAsPEM().pemString.utf8), format: .pem)
        let privateKey = try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem)
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(chain)], privateKey: .privateKey(privateKey))
    }
}

/// Runs a DemoCatalog over HTTPS (HTTP/2 offered by ALPN, HTTP/1.1 beside it) on 127.0.0.1 with a
/// free port, its URLs naming `localhost`, for the duration of `body`.
public func withHTTPSDemoCatalog<T>(
    _ catalog: DemoCatalog = DemoCatalog(logger: silentLogger("demo-catalog")), tls: TLSConfiguration,
    _ body: (DemoCatalog, URL) async throws -> T
) async throws -> T {
    let server = try HTTPServerBuilder.http2Upgrade(tlsConfiguration: tls)
    return try await withRunningServer(
        { onReady in catalog.application(port: 0, server: server, scheme: "https", urlName: "localhost", onReady: onReady) },
        { url in try await body(catalog, url) })
}
