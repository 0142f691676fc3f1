import DemoCatalog
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The command line's contract through the agent, as users run it (agent on): a dead agent
/// comes back, a failure is told on standard error, a home that cannot be read is an error.
@Suite("the command line through the agent", .timeLimit(.minutes(2)))
struct AgentContractTests {
    @Test(
        "the agent killed with SIGKILL mid-batch, then list: it says it starts an agent, which finishes the batch byte-exact with Range, tagged as the batch was begun",
        arguments: [false, true])
    func listRevives(noTags: Bool) async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                try await setup.stoppingAgent {
                    let ids = [1001, 1006]
                    // Mid-batch whatever the machine's speed: each body waits at 400 KB until released.
                    for id in ids {
                        catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: id)
                        catalog.hold(id, atByte: 400_000)
                    }
                    let detached = try await setup.run(
                        ["download", "--detach"] + (noTags ? ["--no-tags"] : []) + ids.map(String.init))
                    #expect(detached.status == 0, "\(detached.stderr)")
                    let first = try #require(try await setup.agentPID())
                    #expect(await eventually(within: .seconds(20)) { ids.allSatisfy { catalog.bytesSent(for: $0) > 100_000 } })
                    kill(first, SIGKILL)
                    #expect(await eventually(within: .seconds(5)) { kill(first, 0) != 0 })
                    for id in ids {
                        catalog.setFaults(PreviewFaults(), for: id)
                        catalog.release(id)
                    }
                    let listed = try await setup.run(["list"])
                    #expect(listed.status == 0, "\(listed.stderr)")
                    let second = try #require(try await setup.agentPID())
                    #expect(second != first)
                    #expect(
                        listed.stderr
                            == "halftunes: started the HalfTunes agent (process \(second)): it resumes 2 unfinished downloads\n")
                    var library: [Int: [String: Any]] = [:]
                    for _ in 0..<600 where library.count < ids.count {
                        try await Task.sleep(for: .milliseconds(50))
                        library = try await setup.library()
                    }
                    try await setup.expectByteExact(ids, in: library, catalog: catalog)
                    // `--no-tags` is the batch's, not the agent's: the agent `list` started keeps it.
                    for id in ids {
                        let file = try #require(library[id]?["file"] as? String)
                        let whole = try Data(contentsOf: URL(fileURLWithPath: file))
                        let asSent = sameBytes(whole, await catalog.preview(for: id)!.data)
                        #expect(asSent == noTags, "\(id): \(noTags ? "tagged despite --no-tags" : "not tagged")")
                    }
                    for id in ids {
                        #expect(catalog.previewRequests.last { $0.trackId == id }?.status == 206, "\(id) was fetched again whole")
                    }
                    // Nothing left to resume: the next list starts nothing and says nothing.
                    try await setup.stopAgent()
                    let quiet = try await setup.run(["list"])
                    #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
                    #expect(try await setup.agentPID() == nil)
                }
            }
        }
    }

    @Test("a tagged batch left by a killed agent is tagged by the agent a --no-tags download starts; that download stays as sent")
    func taggingIsPerDownload() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                try await setup.stoppingAgent {
                    catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: 1001)
                    catalog.hold(1001, atByte: 400_000)
                    let detached = try await setup.run(["download", "--detach", "1001"])
                    #expect(detached.status == 0, "\(detached.stderr)")
                    let first = try #require(try await setup.agentPID())
                    #expect(await eventually(within: .seconds(20)) { catalog.bytesSent(for: 1001) > 100_000 })
                    kill(first, SIGKILL)
                    #expect(await eventually(within: .seconds(5)) { kill(first, 0) != 0 })
                    catalog.setFaults(PreviewFaults(), for: 1001)
                    catalog.release(1001)
                    let untagged = try await setup.run(["download", "--no-tags", "1002"])
                    #expect(untagged.status == 0, "\(untagged.stderr)")
                    var library: [Int: [String: Any]] = [:]
                    for _ in 0..<600 where library.count < 2 {
                        try await Task.sleep(for: .milliseconds(50))
                        library = try await setup.library()
                    }
                    try await setup.expectByteExact([1001, 1002], in: library, catalog: catalog)
                    for (id, tagged) in [(1001, true), (1002, false)] {
                        let file = try #require(library[id]?["file"] as? String)
                        let whole = try Data(contentsOf: URL(fileURLWithPath: file))
                        #expect(sameBytes(whole, await catalog.preview(for: id)!.data) != tagged, "\(id) tagged: \(!tagged)")
                    }
                }
            }
        }
    }

    @Test("a download that fails through the agent: its reason is one line on stderr, as well as in the display; exit 8")
    func failureOnStandardError() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                try await setup.stoppingAgent {
                    catalog.setFaults(PreviewFaults(failure: (status: 404, count: 100)), for: 1002)
                    for arguments in [["download", "1002"], ["download", "--json", "1002"]] {
                        let result = try await setup.run(arguments)
                        #expect(result.status == 8, "\(arguments): \(result.stderr)")
                        let lines = result.stderr.split(separator: "\n")
                        #expect(lines.count == 1, "\(arguments): \(result.stderr)")
                        #expect(lines.first?.hasPrefix("halftunes: Paper Boats — failed: the server answered HTTP 404") == true)
                        #expect(result.stdout.contains("HTTP 404"), "the display shows it too")
                    }
                    #expect(try await setup.agentPID() != nil, "the downloads went through the agent")
                }
            }
        }
    }

    @Test("a home in a folder this user cannot open: an error naming it, exit 2, for list, download and serve")
    func unreadableHome() async throws {
        try await withTemporaryDirectory { folder in
            let closed = folder.appendingPathComponent("closed")
            let home = closed.appendingPathComponent("halftunes")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            try Data().write(to: home.appendingPathComponent("library.sqlite"))
            // Another user's 0700 folder: as root, the command runs as nobody; else the folder is closed to us.
            let asRoot = getuid() == 0
            chmod(folder.path, 0o755)
            chmod(closed.path, asRoot ? 0o700 : 0)
            defer { chmod(closed.path, 0o700) }
            for arguments in [["list"], ["download", "1001"], ["serve", "--port", "0"]] {
                let environment = [
                    "HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": "http://127.0.0.1:9", "HALFTUNES_AGENT": "1",
                ]
                let result =
                    asRoot
                    ? try await ChildProcess.run(
                        URL(filePath: "/usr/bin/setpriv"),
                        ["--reuid=65534", "--regid=65534", "--clear-groups", try BuiltProducts.halftunes.path] + arguments,
                        environment: environment)
                    : try await ChildProcess.run(try BuiltProducts.halftunes, arguments, environment: environment)
                #expect(result.status == 2, "\(arguments): \(result.stdout) \(result.stderr)")
                #expect(
                    result.stderr
                        == "halftunes: the home \(home.path) cannot be read: \(closed.path) is not open to this user; "
                        + "choose another with --home or HALFTUNES_HOME\n", "\(arguments)")
            }
        }
    }
}
