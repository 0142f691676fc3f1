import Foundation
import Hummingbird
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A catalog whose preview never ends, or announces a terabyte, cannot fill the user's disk: the
/// agent stops it at the preview limit, the download fails in one line, and nothing of it stays.
@Suite("oversize previews through the agent", .timeLimit(.minutes(2)))
struct OversizePreviewTests {
    /// At most this much is served to one request (twice the limit), so the test ends either way:
    /// not stopped, 4401 would land whole, and 4402 would be retried for the bytes it lacks.
    static let servedAtMost = 2 * 64 << 20

    /// A catalog of 4401 (its preview endless, no length) and 4402 (announced as 1 TiB).
    static func catalog() -> Router<BasicRequestContext> {
        let router = Router()
        router.addHostileLookup(known: 4401...4402, name: "Endless") { id, here in "http://\(here)/preview/\(id).m4a" }
        router.get("/preview/:name") { _, context -> Response in
            let announced = context.parameters.get("name")?.hasPrefix("4402") == true
            let headers: HTTPFields =
                announced ? [.contentType: "audio/mp4", .contentLength: "\(Int64(1) << 40)"] : [.contentType: "audio/mp4"]
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    let piece = ByteBuffer(repeating: 0x5A, count: 256 << 10)
                    for _ in 0..<(servedAtMost / piece.readableBytes) {
                        try await writer.write(piece)
                    }
                    try await writer.finish(nil)
                })
        }
        return router
    }

    /// The files of more than 1 MiB under `folder`, with their sizes.
    static func filesOverOneMiB(in folder: URL) -> [String: Int] {
        var found: [String: Int] = [:]
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.fileSizeKey])
        while let url = files?.nextObject() as? URL {
            let size = (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
            if size > 1 << 20 { found[url.path] = size }
        }
        return found
    }

    @Test("an endless preview and one announced as 1 TiB fail at the limit in one line each; no bytes stay; the agent stays up")
    func stoppedAtTheLimit() async throws {
        try await withTestServer(Self.catalog()) { catalog in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: URL(string: "http://127.0.0.1:\(catalog.port!)")!)
                let (agent, _) = try await setup.startAgent()
                defer { agent.signal(SIGTERM) }

                let result = try await setup.run(["download", "4401", "4402"])
                #expect(result.status == 8, "\(result.stdout)\n\(result.stderr)")
                let lines = result.stderr.split(separator: "\n")
                #expect(lines.count == 2, "\(result.stderr)")
                #expect(lines.contains { $0.contains("/preview/4401.m4a went past the 67108864-byte limit") }, "\(result.stderr)")
                #expect(
                    lines.contains { $0.contains("/preview/4402.m4a is 1099511627776 bytes, over the 67108864-byte limit") },
                    "\(result.stderr)")
                // No file, partial or otherwise, is left anywhere in the home.
                #expect(Self.filesOverOneMiB(in: setup.home).isEmpty, "\(Self.filesOverOneMiB(in: setup.home))")
                #expect(try await setup.library().isEmpty)
                #expect(try await setup.agentPID() == agent.pid, "the agent went down: \(agent.stderrSoFar)")
            }
        }
    }
}
