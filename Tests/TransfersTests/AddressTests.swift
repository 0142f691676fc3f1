import DemoCatalog
import Foundation
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Real-world names: an IPv6 address, a name with two addresses of which one refuses, a name
/// that does not resolve.
@Suite("Addresses and names", .timeLimit(.minutes(1)))
struct AddressTests {
    /// Whether this machine has IPv6 loopback (a socket can be bound to ::1).
    static let hasIPv6Loopback: Bool = {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) == 0 }
        }
    }()

    @Test("a server on [::1]: byte-exact", .enabled(if: hasIPv6Loopback, "this machine has no IPv6 loopback"))
    func ipv6() async throws {
        let catalog = DemoCatalog(logger: silentLogger("demo-catalog"))
        let server = { (onReady: @escaping @Sendable (URL) async -> Void) in
            catalog.application(host: "::1", port: 0, onReady: onReady)
        }
        try await withRunningServer(server) { base in
            #expect(base.absoluteString.hasPrefix("http://[::1]:"))
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    let task = session.downloadTask(with: previewURL(base, 1001))
                    task.resume()
                    #expect(await recorder.completion(of: task) == nil)
                    let file = try #require(recorder.file(of: task))
                    #expect(sha256Hex(file) == sha256Hex(await catalog.preview(for: 1001)!.data))
                }
            }
        }
    }

    @Test("localhost, its IPv6 address refusing (the server is on 127.0.0.1 alone): the other address is used")
    func oneAddressRefuses() async throws {
        try await withDemoCatalog { catalog, base in
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    let task = session.downloadTask(with: previewURL(URL(string: "http://localhost:\(base.port!)")!, 1002))
                    task.resume()
                    #expect(await recorder.completion(of: task) == nil)
                    let file = try #require(recorder.file(of: task))
                    #expect(sha256Hex(file) == sha256Hex(await catalog.preview(for: 1002)!.data))
                }
            }
        }
    }

    @Test("a name that does not resolve: the failure says \"cannot resolve NAME\"")
    func unresolvable() async throws {
        try await withTemporaryDirectory { folder in
            let tune: (ResumableURLSessionConfiguration) -> Void = {
                $0.retryPolicy = RetryPolicy(
                    maxAttemptsWithoutProgress: 2, baseDelay: .milliseconds(5), maxDelay: .milliseconds(10))
            }
            try await withResumableSession(in: folder, tune) { session, recorder in
                let task = session.downloadTask(with: URL(string: "http://halftunes-test.invalid/previews/1.wav")!)
                task.resume()
                let error = try #require(await recorder.completion(of: task) as? URLError)
                #expect(
                    error.localizedDescription.hasPrefix("cannot resolve halftunes-test.invalid"), "\(error.localizedDescription)"
                )
            }
        }
    }
}
