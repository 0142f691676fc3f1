import DemoCatalog
import Foundation
import NIOSSL
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads over HTTPS from a DemoCatalog whose certificate a test authority signed: byte-exact
/// and resumable when the authority is trusted; a certificate that cannot be trusted fails at
/// once, for good, in one line that says why, with Apple's error code.
@Suite("HTTPS", .timeLimit(.minutes(1)))
struct HTTPSTests {
    /// A session trusting `authority` (its PEM written into `folder`), or the system's roots alone.
    private func session<T>(
        in folder: URL, trusting authority: TestAuthority?, _ body: (ResumableURLSession, DelegateRecorder) async throws -> T
    ) async throws -> T {
        let roots = try authority.map { try TrustRoots(adding: [$0.writePEM(to: folder.appendingPathComponent("ca.pem")).path]) }
        return try await withResumableSession(in: folder, { $0.trustRoots = roots ?? .system }, body)
    }

    @Test("trusted: byte-exact over HTTPS with HTTP/2 offered; a pause and resume fetch only the rest, with If-Range")
    func trusted() async throws {
        let authority = try TestAuthority()
        try await withHTTPSDemoCatalog(tls: try authority.serverTLS()) { catalog, base in
            try await withTemporaryDirectory { folder in
                try await session(in: folder, trusting: authority) { session, recorder in
                    #expect(base.absoluteString.hasPrefix("https://localhost:"))
                    let task = session.downloadTask(with: previewURL(base, 1001))
                    task.resume()
                    #expect(await recorder.completion(of: task) == nil)
                    #expect(try sha256Hex(#require(recorder.file(of: task))) == sha256Hex(await catalog.preview(for: 1001)!.data))

                    catalog.setFaults(PreviewFaults(bytesPerSecond: 200_000), for: 1002)
                    // Paused mid-download whatever the machine's speed: the body waits at 300 KB.
                    catalog.hold(1002, atByte: 300_000)
                    let slow = session.downloadTask(with: previewURL(base, 1002))
                    slow.resume()
                    await recorder.wrote(slow, atLeast: 100_000)
                    let resumeData = await withCheckedContinuation { continuation in
                        slow.cancel(byProducingResumeData: { continuation.resume(returning: $0) })
                    }
                    catalog.setFaults(PreviewFaults(), for: 1002)
                    catalog.release(1002)
                    let resumed = session.downloadTask(withResumeData: try #require(resumeData))
                    resumed.resume()
                    #expect(await recorder.completion(of: resumed) == nil)
                    #expect(
                        try sha256Hex(#require(recorder.file(of: resumed))) == sha256Hex(await catalog.preview(for: 1002)!.data))
                    let last = try #require(catalog.previewRequests.last { $0.trackId == 1002 })
                    #expect(last.status == 206 && last.range != nil && last.ifRange != nil, "\(last)")
                }
            }
        }
    }

    @Test(
        "a certificate that cannot be trusted fails at once, no retries, one line saying why, Apple's code",
        arguments: ["untrusted", "expired", "other name", "plain HTTP"])
    func refused(_ kind: String) async throws {
        let authority = try TestAuthority()
        let yesterday = Date() - 86400
        let tls: TLSConfiguration? =
            switch kind {
            case "untrusted": try authority.serverTLS(selfSigned: true)
            case "expired": try authority.serverTLS(validFrom: yesterday - 86400, validUntil: yesterday)
            case "other name": try authority.serverTLS(names: ["other.example"])
            default: nil
            }
        func run(_ base: URL, _ catalog: DemoCatalog) async throws {
            try await withTemporaryDirectory { folder in
                try await session(in: folder, trusting: kind == "untrusted" ? nil : authority) { session, recorder in
                    let url = previewURL(
                        kind == "plain HTTP" ? URL(string: "https://" + base.absoluteString.dropFirst(7))! : base, 1001)
                    let task = session.downloadTask(with: url)
                    task.resume()
                    let error = try #require(await recorder.completion(of: task) as? URLError)
                    let server = "\(url.host!):\(url.port!)"
                    let (code, message): (URLError.Code, String) =
                        switch kind {
                        case "untrusted":
                            (
                                .serverCertificateUntrusted,
                                "the certificate of \(server) is not trusted (self-signed or unknown authority)"
                            )
                        case "expired": (.serverCertificateHasBadDate, "the certificate of \(server) expired on ")
                        case "other name":
                            (.serverCertificateUntrusted, "the certificate of \(server) is for other.example, not localhost")
                        default: (.secureConnectionFailed, "the TLS handshake with \(server) failed: wrong version number")
                        }
                    #expect(error.code == code, "\(error)")
                    #expect(error.localizedDescription.hasPrefix(message), "\(error.localizedDescription)")
                    #expect(!error.localizedDescription.contains("\n") && !error.localizedDescription.contains(".build"))
                    #expect(error.downloadTaskResumeData == nil)
                    #expect(recorder.progress(of: task).isEmpty)
                    #expect(catalog.previewRequests.isEmpty, "no request reached the server")
                }
            }
        }
        if let tls {
            try await withHTTPSDemoCatalog(tls: tls) { catalog, base in try await run(base, catalog) }
        } else {
            try await withDemoCatalog { catalog, base in try await run(base, catalog) }
        }
    }
}
