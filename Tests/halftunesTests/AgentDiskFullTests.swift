import DemoCatalog
import Foundation
import TestSupport
import Testing

/// The agent's home on a disk that fills up mid-download (a tiny tmpfs): the command says so in
/// one line, the agent stays up, and the download goes on from the bytes kept once there is room.
@Suite(
    "the agent on a full disk",
    .enabled(if: TinyFilesystem.available, "cannot mount a tmpfs here (needs root on Linux): the disk-full test is skipped"),
    .timeLimit(.minutes(2)))
struct AgentDiskFullTests {
    @Test("a full disk fails the download in one line, exit 8; the agent stays up; resume finishes from the bytes kept")
    func diskFull() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                // Room for the indexes, not for a preview (1.3 MB).
                try await TinyFilesystem.withMounted(in: folder, size: "1m") { tiny in
                    let setup = try AgentSetup(folder: folder, catalog: url)
                    var environment = setup.environment
                    environment["HALFTUNES_HOME"] = tiny.appendingPathComponent("home").path
                    environment["HALFTUNES_NO_TAGS"] = "1"
                    try await setup.stoppingAgent(environment: environment) {
                        let full = try await setup.run(["download", "1030"], environment: environment)
                        #expect(full.status == 8, "stdout: \(full.stdout)\nstderr: \(full.stderr)")
                        // The track's line says why, once (the display's lines are on standard output).
                        let said = full.stdout.split(separator: "\n").filter {
                            $0.contains("failed: no space left on the device")
                        }
                        #expect(said.count == 1, "\(full.stdout)")
                        let agent = try #require(try await setup.agentPID(environment: environment), "the agent is gone")
                        let kept = catalog.bytesSent(for: 1030)
                        #expect(kept > 0)

                        try TinyFilesystem.resize(tiny, to: "8m")
                        let resumed = try await setup.run(["resume", "1030"], environment: environment)
                        #expect(resumed.status == 0, "\(resumed.stdout) \(resumed.stderr)")
                        #expect(try await setup.agentPID(environment: environment) == agent)
                        let library = filesIn(tiny.appendingPathComponent("home/library"))
                        let file = try #require(library.first { $0.contains("[1030]") }, "\(library)")
                        let data = try Data(contentsOf: tiny.appendingPathComponent("home/library").appendingPathComponent(file))
                        #expect(sameBytes(data, await catalog.preview(for: 1030)!.data))
                        // The rest, from where the disk filled up.
                        let last = try #require(catalog.previewRequests.last { $0.trackId == 1030 })
                        #expect(last.range != nil && last.status == 206, "\(catalog.previewRequests)")
                    }
                }
            }
        }
    }
}
