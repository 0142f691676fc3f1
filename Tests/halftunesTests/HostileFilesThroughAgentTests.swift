import AsyncHTTPClient
import Foundation
import Hummingbird
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The owner of every download stays up whatever a catalog hands it: a preview whose `co64` chunk
/// offset moving the audio would carry past Int64, one whose first box claims 2^63 bytes, and a
/// preview URL on port 999999, downloaded through the agent as users do; then `export` and the
/// page's playlist read the library, and a good download in the same home lands — one agent
/// process throughout.
@Suite("hostile files through the agent", .timeLimit(.minutes(2)))
struct HostileFilesThroughAgentTests {
    static func box(_ type: String, _ content: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: UInt32(content.count + 8).bigEndian, Array.init) + Array(type.utf8) + content
    }
    static let ftyp = box("ftyp", Array("M4A ".utf8) + [0, 0, 0, 0] + Array("isom".utf8))
    static let mvhd = box(
        "mvhd",
        [0, 0, 0, 0] + [UInt8](repeating: 0, count: 8) + [0, 0, 0xAC, 0x44, 0, 0x14, 0x30, 0xF8]
            + [UInt8](repeating: 0, count: 80))

    /// An MP4 with its `moov` first and one 64-bit chunk offset, `offset`.
    static func moovFirst(chunkOffset offset: UInt64) -> [UInt8] {
        let co64 = box("co64", [0, 0, 0, 0, 0, 0, 0, 1] + withUnsafeBytes(of: offset.bigEndian, Array.init))
        return ftyp + box("moov", mvhd + box("trak", box("mdia", box("minf", box("stbl", co64))))) + box("mdat", [1, 2, 3])
    }

    static let files: [Int: [UInt8]] = [
        4301: moovFirst(chunkOffset: UInt64(Int64.max) - 5),
        // ftyp as a 64-bit size of 2^63, then a little audio.
        4302: [0, 0, 0, 1] + Array("ftyp".utf8) + [0x80, 0, 0, 0, 0, 0, 0, 0] + Array("M4A ".utf8)
            + [UInt8](repeating: 7, count: 64),
        4304: moovFirst(chunkOffset: 200),
    ]

    /// A catalog whose lookups answer the ids asked for among 4301–4304, with previews served here.
    static func catalog() -> Router<BasicRequestContext> {
        let router = Router()
        router.addHostileLookup(known: 4301...4304, name: "Hostile") { id, here in
            id == 4303 ? "http://127.0.0.1:999999/p.m4a" : "http://\(here)/preview/\(id).m4a"
        }
        router.get("/preview/:name") { _, context -> Response in
            let name = context.parameters.get("name") ?? ""
            guard let id = Int(name.prefix { $0.isNumber }), let bytes = files[id] else { return Response(status: .notFound) }
            return Response(
                status: .ok, headers: [.contentType: "audio/mp4"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        return router
    }

    @Test(
        "co64 past Int64, a first box of 2^63 bytes, port 999999: the agent stays up, export and the playlist answer, the next download lands"
    )
    func agentStaysUp() async throws {
        try await withTestServer(Self.catalog()) { catalog in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: URL(string: "http://127.0.0.1:\(catalog.port!)")!)
                let (agent, _) = try await setup.startAgent()
                defer { agent.signal(SIGTERM) }

                let port = try await setup.run(["download", "4303"])
                #expect(port.status != 0)
                #expect(port.stderr.contains("(4303) has no preview"), "\(port.stderr)")
                let hostile = try await setup.run(["download", "4301", "4302"])
                #expect(try await setup.agentPID() == agent.pid, "the agent went down: \(agent.stderrSoFar)")
                let library = try await setup.library()
                for id in [4301, 4302] {
                    let file = try #require(
                        library[id]?["file"] as? String, "\(id) not kept: \(hostile.stdout)\n\(hostile.stderr)")
                    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(Self.files[id]!), "\(id) kept as downloaded")
                }

                let export = try await setup.run(["export"])
                #expect(export.status == 0, "\(export.stderr)")
                #expect(export.stdout.hasPrefix("#EXTM3U"), "\(export.stdout)")
                #expect(export.stdout.contains("Hostile 4302"), "\(export.stdout)")

                let (server, url) = try await setup.serve()
                defer { server.signal(SIGTERM) }
                let response = try await HTTPClient.shared.execute(
                    HTTPClientRequest(url: url.absoluteString + "/library.m3u8"), timeout: .seconds(30))
                let playlist = String(buffer: try await response.body.collect(upTo: 1 << 20))
                #expect(response.status.code == 200)
                #expect(playlist.contains("Hostile 4301") && playlist.contains("Hostile 4302"), "\(playlist)")

                let good = try await setup.run(["download", "4304"])
                #expect(good.status == 0, "\(good.stdout)\n\(good.stderr)")
                #expect(try await setup.library()[4304] != nil)
                #expect(try await setup.agentPID() == agent.pid, "the agent went down: \(agent.stderrSoFar)")
                #expect(!agent.stderrSoFar.contains("Fatal error"), "\(agent.stderrSoFar)")
            }
        }
    }
}
