import DemoCatalog
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Plain commands hand their downloads to the agent, started on demand: the downloads outlive
/// the terminal, the agent, and any one command.
@Suite("downloads owned by the agent by default", .timeLimit(.minutes(2)))
struct AgentByDefaultTests {
    /// Whether a process whose command line holds `marker` and `word` still runs.
    static func commandRuns(_ marker: String, _ word: String) -> Bool {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.contains { name in
            guard Int32(name) != nil, Int32(name) != getpid(),
                let line = FileManager.default.contents(atPath: "/proc/\(name)/cmdline")
            else { return false }
            let arguments = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.contains(marker) && arguments.contains(word) && !arguments.contains("agent")
        }
    }

    @Test(
        "download in a terminal that closes mid-batch: the command dies of the hangup, the agent lands every file byte-exact",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a pty: skipped"))
    func terminalClosed() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                try await setup.stoppingAgent {
                    let ids = [1001, 1002, 1006]
                    // Mid-batch whatever the machine's speed: each body waits at 300 KB until released.
                    for id in ids {
                        catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: id)
                        catalog.hold(id, atByte: 300_000)
                    }
                    // `script` runs the command on a pty of its own; killed, it closes the pty's master
                    // and the kernel hangs up the command, as when a terminal window closes.
                    let line =
                        ([try BuiltProducts.halftunes.path, "download", "--home", setup.home.path, "--json"]
                        + ids.map(String.init))
                        .joined(separator: " ")
                    let terminal = try ChildProcess(
                        URL(filePath: "/usr/bin/script"), ["-qfec", line, "/dev/null"], environment: setup.environment)
                    _ = await terminal.waitForLine {
                        receivedBytes($0, atLeast: 1)
                    }
                    terminal.signal(SIGKILL)
                    _ = await terminal.wait()
                    var gone = false
                    for _ in 0..<200 {
                        gone = !Self.commandRuns(setup.home.path, "download")
                        if gone { break }
                        try await Task.sleep(for: .milliseconds(25))
                    }
                    #expect(gone, "the command outlived its terminal")
                    // No client is left, and the files are not all in yet: the agent goes on alone.
                    #expect(try await setup.library().count < ids.count)
                    for id in ids {
                        catalog.setFaults(PreviewFaults(), for: id)
                        catalog.release(id)
                    }
                    var library: [Int: [String: Any]] = [:]
                    for _ in 0..<600 where library.count < ids.count {
                        try await Task.sleep(for: .milliseconds(50))
                        library = try await setup.library()
                    }
                    try await setup.expectByteExact(ids, in: library, catalog: catalog)
                }
            }
        }
    }

    @Test("the agent killed with SIGKILL mid-batch: the next command brings a new agent up, and the batch lands byte-exact")
    func agentKilled() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                try await setup.stoppingAgent {
                    let ids = [1001, 1006]
                    // Mid-body whatever the machine's speed: each body waits at 300 KB until released.
                    for id in ids {
                        catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: id)
                        catalog.hold(id, atByte: 300_000)
                    }
                    let detached = try await setup.run(["download", "--detach"] + ids.map(String.init))
                    #expect(detached.status == 0, "\(detached.stderr)")
                    let first = try #require(try await setup.agentPID())
                    // Some bytes of each are in.
                    #expect(await eventually(within: .seconds(20)) { ids.allSatisfy { catalog.bytesSent(for: $0) > 100_000 } })
                    kill(first, SIGKILL)
                    #expect(await eventually(within: .seconds(5)) { kill(first, 0) != 0 })
                    #expect(try await setup.library().isEmpty, "killed before any file was in")
                    for id in ids {
                        catalog.setFaults(PreviewFaults(), for: id)
                        catalog.release(id)
                    }
                    let waited = try await setup.run(["wait"] + ids.map(String.init))
                    #expect(waited.status == 0, "\(waited.stdout) \(waited.stderr)")
                    let second = try #require(try await setup.agentPID())
                    #expect(second != first)
                    let library = try await setup.library()
                    try await setup.expectByteExact(ids, in: library, catalog: catalog)
                }
            }
        }
    }

    @Test("download --detach; pause, cancel and resume from other commands, serve started and stopped meanwhile: nothing refused")
    func everyCommandBeside() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                try await setup.stoppingAgent {
                    let ids = [1001, 1002, 1006]
                    // Still downloading while the other commands act, whatever the machine's speed.
                    for id in ids {
                        catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: id)
                        catalog.hold(id, atByte: 300_000)
                    }
                    let detached = try await setup.run(["download", "--detach"] + ids.map(String.init))
                    #expect(detached.status == 0, "\(detached.stderr)")
                    let agent = try #require(try await setup.agentPID())
                    let server = try ChildProcess(
                        try BuiltProducts.halftunes, ["serve", "--port", "0"], environment: setup.environment)
                    let page = await server.waitForLine { line -> String? in
                        line.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression).map { String(line[$0]) }
                    }
                    let base = try #require(page, "serve did not start: \(server.stderrSoFar)")
                    // The page's API shows the agent's downloads.
                    let listed = try await ChildProcess.run(
                        URL(filePath: "/usr/bin/curl"), ["-sS", "--max-time", "10", base + "/api/downloads"])
                    let listing = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any]
                    let shown = (listing?["downloads"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
                    #expect(shown.sorted() == ids, "\(listed.stdout)")
                    for command in [["pause", "1002"], ["cancel", "1006"]] {
                        let result = try await setup.run(command)
                        #expect(result.status == 0, "\(command): \(result.stderr)")
                    }
                    server.signal(SIGTERM)
                    let stopped = await server.wait()
                    #expect(stopped.status == 0, "\(stopped.stderr)")
                    #expect(stopped.stdout.contains("the agent goes on with the downloads"), "\(stopped.stdout)")
                    #expect(try await setup.agentPID() == agent, "stopping serve stopped the agent")
                    for id in ids {
                        catalog.setFaults(PreviewFaults(), for: id)
                        catalog.release(id)
                    }
                    let resumed = try await setup.run(["resume", "1002"])
                    #expect(resumed.status == 0, "\(resumed.stderr)")
                    let waited = try await setup.run(["wait", "1001", "1002"])
                    #expect(waited.status == 0, "\(waited.stdout) \(waited.stderr)")
                    let library = try await setup.library()
                    #expect(library.keys.sorted() == [1001, 1002])
                    try await setup.expectByteExact([1001, 1002], in: library, catalog: catalog)
                }
            }
        }
    }

    @Test("with the agent's user unit installed, a command of the default home starts the agent through systemctl --user")
    func throughSystemd() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                // A stand-in for systemd: it notes what it was asked and starts the agent as the
                // unit would, with the unit's own environment (the catalog, the default home).
                let requests = folder.appendingPathComponent("systemctl.log")
                let agent = try BuiltProducts.halftunes.path
                let environment = try setup.withSystemdStandIn(
                    folder: folder, units: ["halftunes-agent.service"],
                    script: """
                        echo "$*" >> '\(requests.path)'
                        HALFTUNES_CATALOG='\(url.absoluteString)' setsid '\(agent)' agent --idle-exit 0 </dev/null >/dev/null 2>&1 &
                        """)
                let home = folder.appendingPathComponent("data/halftunes")
                try await setup.stoppingAgent(environment: environment) {
                    let result = try await ChildProcess.run(
                        try BuiltProducts.halftunes, ["download", "1001"], environment: environment)
                    #expect(result.status == 0, "\(result.stderr)")
                    #expect(
                        try String(contentsOf: requests, encoding: .utf8) == "--user start --no-block halftunes-agent.service\n")
                    #expect(
                        !FileManager.default.fileExists(atPath: home.appendingPathComponent("agent.log").path),
                        "\((try? String(contentsOf: home.appendingPathComponent("agent.log"), encoding: .utf8)) ?? "")")
                    let library = filesIn(home.appendingPathComponent("library"))
                    #expect(library.contains { $0.contains("[1001]") }, "\(library)")
                    #expect(catalog.previewRequests.count == 1)
                }
            }
        }
    }

    @Test("HALFTUNES_AGENT=0 keeps a download in its own process: no agent is started")
    func optOut() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                let result = try await ChildProcess.run(
                    try BuiltProducts.halftunes, ["download", "1001"],
                    environment: setup.environment.merging(["HALFTUNES_AGENT": "0"]) { $1 })
                #expect(result.status == 0, "\(result.stderr)")
                #expect(try await setup.agentPID() == nil)
                #expect(filesIn(setup.socketFolder).isEmpty)
                #expect(try await setup.library().keys.sorted() == [1001])
            }
        }
    }
}
