import DemoCatalog
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Another user of the machine reaches `serve`'s port (any local user can connect to 127.0.0.1)
/// but not the page: the kernel's socket table says whose each connection is.
@Suite(
    "serve answers its own user only", .timeLimit(.minutes(2)),
    .enabled(
        if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"),
        "needs root, setpriv and curl, to run a client as another user"))
struct OtherUserTests {
    /// curl's status code for `arguments`, run as `uid` (nil: this user).
    private func curl(_ arguments: [String], as uid: Int? = nil) async throws -> String {
        let curl = ["/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10"] + arguments
        guard let uid else { return try await ChildProcess.run(URL(fileURLWithPath: curl[0]), Array(curl.dropFirst())).stdout }
        let asUser = ["--reuid", "\(uid)", "--regid", "\(uid)", "--clear-groups", "--"] + curl
        return try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/setpriv"), asUser).stdout
    }

    @Test("uid 65534 gets 403 on every route, reads and changes alike, with the token; this user's requests work")
    func anotherUserIsRefused() async throws {
        try await withDemoCatalog { catalog, catalogURL in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: catalogURL)
                try await setup.stoppingAgent {
                    let server = try ChildProcess(
                        try BuiltProducts.halftunes, ["serve", "--port", "0"], environment: setup.environment)
                    defer { server.signal(SIGTERM) }
                    let found = await server.waitForLine { line -> URL? in
                        line.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression).flatMap {
                            URL(string: String(line[$0]))
                        }
                    }
                    let url = try #require(found, "serve did not start: \(server.stderrSoFar)").absoluteString
                    let token = try await pageToken(at: URL(string: url)!)
                    let change = ["-X", "POST", "-H", "Origin: \(url)", "-H", "X-HalfTunes-Token: \(token)"]

                    for path in [
                        "/", "/static/app.js", "/api/downloads", "/api/events", "/library.m3u8", "/api/search?term=love",
                    ] {
                        #expect(try await curl([url + path], as: 65534) == "403", "\(path) as uid 65534")
                    }
                    #expect(try await curl(change + [url + "/api/downloads/1001"], as: 65534) == "403")
                    #expect(
                        try await curl(
                            [
                                "-X", "PUT", "-H", "Origin: \(url)", "-H", "X-HalfTunes-Token: \(token)",
                                "--data", #"{"bytesPerSecond":1024}"#, url + "/api/limit-rate",
                            ], as: 65534) == "403")
                    #expect(catalog.previewRequests.isEmpty, "nothing was downloaded for the other user")

                    // The user's own requests, the same ones: answered.
                    #expect(try await curl([url + "/api/downloads"]) == "200")
                    #expect(try await curl(change + [url + "/api/downloads/1001"]) == "200")
                    let library = setup.home.appendingPathComponent("library")
                    for _ in 0..<500 where !filesIn(library).contains(where: { $0.hasSuffix("[1001].wav") }) {
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    #expect(filesIn(library).contains { $0.hasSuffix("[1001].wav") })
                }
            }
        }
    }
}
