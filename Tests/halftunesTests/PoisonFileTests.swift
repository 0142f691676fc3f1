import DemoCatalog
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A file whose finishing ends the process that owns every download (a poison input: a tagger
/// crash) is set aside the second time, its bytes kept, and every other download goes on.
/// The crash is a stand-in: `HALFTUNES_TEST_CRASH_WHILE_FINISHING=ID` makes the tagger end its
/// process with SIGKILL when it begins on that track.
@Suite("a file that crashes its finishing", .timeLimit(.minutes(2)))
struct PoisonFileTests {
    @Test(
        "through the agent: it dies finishing one file; the command brings agents back, the file is set aside, the other lands"
    )
    func throughTheAgent() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                var environment = halftunesEnvironment(home: home, catalog: url)
                environment["HALFTUNES_TEST_CRASH_WHILE_FINISHING"] = "1001"
                let binary = try BuiltProducts.halftunes
                let run = try await ChildProcess.run(binary, ["download", "1001", "1002"], environment: environment)
                #expect(run.status == 8, "\(run.stdout)\n\(run.stderr)")
                #expect(run.stderr.contains("the HalfTunes agent ended; started another"), "\(run.stderr)")
                #expect(
                    run.stderr.contains(
                        "Love in the Harbour — failed: HalfTunes stopped while finishing this file; kept as downloaded"),
                    "\(run.stderr)")
                let library = home.appendingPathComponent("library")
                let files = filesIn(library)
                let landed = try #require(files.first { $0.hasSuffix("[1002].wav") }, "\(files)")
                #expect(
                    WAVAudio.audioHash(try Data(contentsOf: library.appendingPathComponent(landed)))
                        == WAVAudio.audioHash(await catalog.preview(for: 1002)!.data))
                // 1001's bytes are kept, whole, as downloaded.
                let kept = try #require(files.first { $0.contains("[1001]") && $0.hasSuffix(".part") }, "\(files)")
                #expect(try await catalog.preview(for: 1001)!.data == Data(contentsOf: library.appendingPathComponent(kept)))
                #expect(!files.contains { $0.contains("[1001]") && $0.hasSuffix(".wav") })
                let listed = try await ChildProcess.run(binary, ["list", "--json"], environment: environment)
                let downloads = (ndjson(listed.stdout).first?["downloads"] as? [[String: Any]]) ?? []
                let entry = try #require(downloads.first { $0["id"] as? Int == 1001 }, "\(listed.stdout)")
                #expect(entry["state"] as? String == "failed")
                #expect((entry["reason"] as? String)?.hasSuffix("kept as downloaded") == true, "\(entry)")
            }
        }
    }

    @Test("HALFTUNES_AGENT=0: the command dies twice finishing one file; the third run sets it aside and lands the others")
    func inProcess() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { home in
                var environment = halftunesEnvironment(home: home, catalog: url, inProcess: true)
                environment["HALFTUNES_TEST_CRASH_WHILE_FINISHING"] = "1001"
                let binary = try BuiltProducts.halftunes
                for round in 1...2 {
                    let run = try await ChildProcess.run(binary, ["download", "1001"], environment: environment)
                    #expect(run.signaled && run.status == SIGKILL, "round \(round): \(run.status) \(run.stderr)")
                }
                let third = try await ChildProcess.run(binary, ["download", "1001", "1002"], environment: environment)
                #expect(third.status == 8, "\(third.stderr)")
                #expect(
                    third.stderr.contains("HalfTunes stopped while finishing this file; kept as downloaded"), "\(third.stderr)")
                #expect(filesIn(home.appendingPathComponent("library")).contains { $0.hasSuffix("[1002].wav") })
                // Cancelling it leaves nothing behind, its count included.
                let cancelled = try await ChildProcess.run(binary, ["cancel", "1001"], environment: environment)
                #expect(cancelled.status == 0, "\(cancelled.stderr)")
                #expect(!filesIn(home.appendingPathComponent("library")).contains { $0.contains("[1001]") })
            }
        }
    }
}
