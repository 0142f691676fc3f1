import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `halftunes agent` as a process on its Unix socket, with commands acting through it.
@Suite("halftunes agent", .timeLimit(.minutes(2)))
struct AgentCommandTests {
    @Test("commands act through a running agent: a download killed mid-way goes on in the agent and lands byte-exact")
    func downloadsOutliveTheCommand() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                let (agent, socket) = try await setup.startAgent()
                defer { agent.signal(SIGTERM) }
                #expect(socket.hasPrefix(setup.socketFolder.path + "/"))
                let status = try await setup.run(["agent", "--status"])
                #expect(status.status == 0, "\(status.stderr)")
                #expect(status.stdout.contains("process \(agent.pid), socket \(socket)"), "\(status.stdout)")

                // Slow enough to be mid-body when the command is killed.
                catalog.setFaults(PreviewFaults(bytesPerSecond: 200_000), for: 1006)
                let command = try ChildProcess(
                    try BuiltProducts.halftunes, ["download", "1006", "--json"], environment: setup.environment)
                _ = await command.waitForLine { receivedBytes($0, atLeast: 1) }
                command.signal(SIGKILL)
                _ = await command.wait()
                // The agent goes on: a later `list` (through it) sees the track arrive.
                var listed: [String: Any] = [:]
                for _ in 0..<400 {
                    let list = try await setup.run(["list", "--json"])
                    listed = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
                    if let library = listed["library"] as? [[String: Any]], library.contains(where: { $0["id"] as? Int == 1006 })
                    {
                        break
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let item = try #require((listed["library"] as? [[String: Any]])?.first { $0["id"] as? Int == 1006 }, "\(listed)")
                let file = try #require(item["file"] as? String)
                let data = try Data(contentsOf: URL(fileURLWithPath: file))
                #expect(WAVAudio.audioHash(data) == WAVAudio.audioHash(await catalog.preview(for: 1006)!.data))
                // One request for the whole file: the agent's, never restarted or resumed.
                #expect(catalog.previewRequests.filter { $0.trackId == 1006 }.map(\.range) == [nil])
            }
        }
    }

    @Test("Ctrl-C of a download through the agent pauses its track there, as when it ran in the command")
    func interruptPauses() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                let (agent, _) = try await setup.startAgent()
                defer { agent.signal(SIGTERM) }
                catalog.setFaults(PreviewFaults(bytesPerSecond: 100_000), for: 1006)
                let command = try ChildProcess(
                    try BuiltProducts.halftunes, ["download", "1006", "--json"], environment: setup.environment)
                _ = await command.waitForLine { receivedBytes($0, atLeast: 1) }
                command.signal(SIGINT)
                #expect(await command.wait().status == 130)
                let list = try await setup.run(["list", "--json"])
                let listed = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])
                let downloads = try #require(listed["downloads"] as? [[String: Any]], "\(list.stdout) \(list.stderr)")
                #expect(downloads.map { $0["state"] as? String } == ["paused"], "\(downloads)")
            }
        }
    }

    @Test("download --detach starts the agent and returns; two at once share one agent; wait follows to the end")
    func detachAndWait() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                catalog.setFaults(PreviewFaults(bytesPerSecond: 400_000), for: 1001)
                catalog.setFaults(PreviewFaults(failure: (status: 400, count: 10)), for: 1004)
                async let first = setup.run(["download", "--detach", "1001", "1004"])
                async let second = setup.run(["download", "--detach", "1002,1003"])
                let results = try await [first, second]
                let pids = results.compactMap { result in
                    result.stdout.firstRange(of: "(process ").flatMap { range in
                        Int32(result.stdout[range.upperBound...].prefix { $0.isNumber })
                    }
                }
                defer { pids.forEach { kill($0, SIGTERM) } }
                for result in results { #expect(result.status == 0, "\(result.stderr)") }
                #expect(pids.count == 2 && pids[0] == pids[1], "one agent for both: \(results.map(\.stdout))")
                #expect(results[1].stdout.hasSuffix("Follow them: halftunes list, or halftunes wait 1002,1003\n"))
                // The commands have ended; the agent downloads on. wait follows it to the end.
                let waited = try await setup.run(["wait", "1001", "1002", "1003"])
                #expect(waited.status == 0, "\(waited.stdout) \(waited.stderr)")
                let library = setup.home.appendingPathComponent("library")
                for id in [1001, 1002, 1003] {
                    let name = try #require(filesIn(library).first { $0.contains("[\(id)]") && !$0.hasSuffix(".part") })
                    let data = try Data(contentsOf: library.appendingPathComponent(name))
                    #expect(WAVAudio.audioHash(data) == WAVAudio.audioHash(await catalog.preview(for: id)!.data))
                }
                let failed = try await setup.run(["wait", "1004"])
                #expect(failed.status == 8, "\(failed.stdout) \(failed.stderr)")
                let unknown = try await setup.run(["wait", "1005"])
                #expect(unknown.status == 3)
                #expect(unknown.stderr == "halftunes: not downloading and not in the library: 1005 (halftunes download 1005)\n")
            }
        }
    }

    @Test("two downloads at once whose agents provably meet at the lock (a barrier before it): one agent left, both land")
    func agentsRaceToTheLock() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                let barrier = folder.appendingPathComponent("barrier")
                try FileManager.default.createDirectory(at: barrier, withIntermediateDirectories: true)
                let environment = setup.environment.merging(["HALFTUNES_TEST_AGENT_BARRIER": barrier.path]) { $1 }
                try await setup.stoppingAgent {
                    async let first = setup.run(["download", "1001"], environment: environment)
                    async let second = setup.run(["download", "1002"], environment: environment)
                    let results = try await [first, second]
                    for result in results { #expect(result.status == 0, "\(result.stderr)") }
                    let met = try FileManager.default.contentsOfDirectory(atPath: barrier.path)
                    #expect(met.count == 2, "agents at the barrier together: \(met)")
                    let agents = TestAgents.running(homesIn: setup.home)
                    #expect(agents.count == 1, "agents left: \(agents)")
                    try await setup.expectByteExact([1001, 1002], in: try await setup.library(), catalog: catalog)
                }
            }
        }
    }

    @Test("a download's batch goes to the agent in one lookup; --status counts the library")
    func batchThroughTheAgent() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                let (agent, _) = try await setup.startAgent()
                defer { agent.signal(SIGTERM) }
                let before = catalog.lookupRequests.count
                let download = try await setup.run(["download", "1001", "1002", "1003"])
                #expect(download.status == 0, "\(download.stderr)")
                #expect(catalog.lookupRequests.count == before + 1, "one lookup for the batch")
                let status = try await setup.run(["agent", "--status"])
                #expect(status.stdout.contains("library: 3 tracks"), "\(status.stdout)")
            }
        }
    }

    @Test("an agent started with a batch's ids looks them up before any client asks; the download of them asks no more")
    func lookAhead() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                let (agent, _) = try await setup.startAgent(["--idle-exit", "0", "--look-ahead", "1001,1002"])
                defer { agent.signal(SIGTERM) }
                #expect(await eventually(within: .seconds(10)) { catalog.lookupRequests == [[1001, 1002]] })
                let download = try await setup.run(["download", "1002", "1001"])
                #expect(download.status == 0, "\(download.stderr)")
                #expect(catalog.lookupRequests == [[1001, 1002]], "one lookup in all")
                try await setup.expectByteExact([1001, 1002], in: try await setup.library(), catalog: catalog)
            }
        }
    }

    @Test("a download that starts the agent hands it the batch's first ids to look up: one lookup in all")
    func downloadStartsAgentWithItsIDs() async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                try await setup.stoppingAgent {
                    let download = try await setup.run(["download", "1003", "1001", "1002"])
                    #expect(download.status == 0, "\(download.stderr)")
                    #expect(catalog.lookupRequests == [[1001, 1002, 1003]], "one lookup in all")
                    let pid = try #require(try await setup.agentPID(), "the agent the download started runs")
                    let commandLine = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))
                    let words = String(decoding: commandLine, as: UTF8.self).split(separator: "\0").map(String.init)
                    let flag = try #require(words.firstIndex(of: "--look-ahead"), "\(words)")
                    #expect(words.dropFirst(flag + 1).first == "1003,1001,1002")
                    try await setup.expectByteExact([1001, 1002, 1003], in: try await setup.library(), catalog: catalog)
                }
            }
        }
    }

    @Test(
        "the agent raises its descriptor limit to the hard one: started under a soft limit of 256, it serves 300 connections at once",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs prlimit (util-linux)"))
    func descriptorLimit() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                let agent = try ChildProcess(
                    URL(fileURLWithPath: "/usr/bin/prlimit"),
                    ["--nofile=256:4096", "--", try BuiltProducts.halftunes.path, "agent", "--idle-exit", "0"],
                    environment: setup.environment)
                defer { agent.signal(SIGTERM) }
                let path = try #require(
                    await agent.waitForLine { line in
                        line.range(of: " listening on ").map { String(line[$0.upperBound...].split(separator: " ")[0]) }
                    }, "the agent did not start: \(agent.stderrSoFar)")
                let limits = try String(contentsOfFile: "/proc/\(agent.pid)/limits", encoding: .utf8)
                let files = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
                #expect(files.split(separator: " ", omittingEmptySubsequences: true).suffix(3).prefix(2) == ["4096", "4096"])
                // More connections than the soft limit it was given, each answered.
                var connections: [Int32] = []
                defer { connections.forEach { close($0) } }
                for _ in 0..<300 {
                    let connection = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
                    var address = sockaddr_un()
                    address.sun_family = sa_family_t(AF_UNIX)
                    withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
                        path.utf8CString.withUnsafeBytes { sunPath.copyMemory(from: $0) }
                    }
                    let connected = withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            connect(connection, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                        }
                    }
                    try #require(connected == 0, "connection \(connections.count + 1) refused")
                    connections.append(connection)
                }
                let status = try await setup.run(["agent", "--status"])
                #expect(status.status == 0, "with 300 connections open: \(status.stderr)")
            }
        }
    }

    @Test("the socket's folder must be the user's alone: mode 755, or another owner, is refused in one line, exit 2")
    func folderMode() async throws {
        try await withTemporaryDirectory { folder in
            let setup = try AgentSetup(folder: folder, catalog: URL(string: "http://127.0.0.1:9")!)
            try FileManager.default.createDirectory(
                at: setup.socketFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let result = try await setup.run(["agent"])
            #expect(result.status == 2)
            #expect(
                result.stderr
                    == "halftunes: \(setup.socketFolder.path) is mode 755: the agent needs it 700 (chmod 700 \(setup.socketFolder.path))\n"
            )
            #expect(filesIn(setup.socketFolder).isEmpty)
            // Mode 700 but another user's (only root can hand a folder over): refused too.
            guard geteuid() == 0 else { return }
            chmod(setup.socketFolder.path, 0o700)
            chown(setup.socketFolder.path, 65534, 65534)
            for command in [["agent"], ["download", "--detach", "1001"]] {
                let refused = try await setup.run(command)
                #expect(refused.status == 2, "\(command): \(refused.stderr)")
                #expect(
                    refused.stderr
                        == "halftunes: \(setup.socketFolder.path) belongs to uid 65534, not to you (uid 0): the agent will not use it\n",
                    "\(command)")
            }
            #expect(filesIn(setup.socketFolder).isEmpty)
        }
    }

    @Test(
        "another user's connection is closed unanswered, even with the socket open to all; halftunes as that user is refused in one line and writes nothing",
        .enabled(
            if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "a client as another user needs root and setpriv: skipped"))
    func otherUsersRefused() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                let (agent, socket) = try await setup.startAgent()
                defer { agent.signal(SIGTERM) }
                // What the modes would let through: only the agent's own check stands.
                chmod(setup.socketFolder.path, 0o711)
                chmod(socket, 0o666)
                let curl = ["/usr/bin/curl", "-sS", "--max-time", "10", "--unix-socket", socket, "http://agent/api/downloads"]
                let mine = try await ChildProcess.run(URL(filePath: curl[0]), Array(curl.dropFirst()))
                #expect(mine.status == 0 && mine.stdout.contains("\"v\":1"), "\(mine.stdout) \(mine.stderr)")
                let nobody = try await ChildProcess.run(
                    URL(filePath: "/usr/bin/setpriv"), ["--reuid", "65534", "--regid", "65534", "--clear-groups", "--"] + curl)
                // The connection is closed as it opens (curl: 7, or 52/56 when it got to send) —
                // not 28, a timeout — and the agent says whom it refused.
                #expect([7, 52, 56].contains(nobody.status), "curl exit \(nobody.status): \(nobody.stderr)")
                #expect(nobody.stdout.isEmpty)
                let said = await agent.waitForLine(standardError: true) {
                    $0.contains("a connection from uid 65534 refused") ? true : nil
                }
                #expect(said == true, "\(agent.stderrSoFar)")

                // halftunes itself as that user, on this home: refused in one line, nothing written.
                let asNobody = ["--reuid", "65534", "--regid", "65534", "--clear-groups", "--", try BuiltProducts.halftunes.path]
                for command in [["list"], ["download", "1001"], ["agent", "--status"]] {
                    let refused = try await ChildProcess.run(
                        URL(filePath: "/usr/bin/setpriv"), asNobody + command, environment: setup.environment)
                    #expect(refused.status == 7, "\(command): \(refused.stdout) \(refused.stderr)")
                    #expect(
                        refused.stderr
                            == "halftunes: the agent on \(socket) is another user's (uid \(geteuid())), and so is this "
                            + "home: use your own (--home, HALFTUNES_HOME, XDG_RUNTIME_DIR)\n")
                }
                let written = FileManager.default.enumerator(atPath: folder.path)?.compactMap { name -> String? in
                    var info = stat()
                    let path = folder.appendingPathComponent(name as! String).path
                    return lstat(path, &info) == 0 && info.st_uid == 65534 ? path : nil
                }
                #expect(written == [], "files of the refused user: \(written ?? [])")
            }
        }
    }

    @Test("a stale socket (its agent gone) is replaced; a second agent for the home is refused, naming the first")
    func staleSocketAndSecondAgent() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                let (first, socket) = try await setup.startAgent()
                first.signal(SIGKILL)
                _ = await first.wait()
                #expect(FileManager.default.fileExists(atPath: socket), "a killed agent leaves its socket")
                let (agent, again) = try await setup.startAgent()
                defer { agent.signal(SIGTERM) }
                #expect(again == socket)
                let second = try await setup.run(["agent"])
                #expect(second.status == 4)
                #expect(second.stderr == "halftunes: an agent already runs for this home (process \(agent.pid)), on \(socket)\n")
            }
        }
    }

    @Test("the agent ends by itself after --idle-exit with nothing to do, and removes its socket; --status then says so")
    func idleExit() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                let (agent, socket) = try await setup.startAgent(["--idle-exit", "1"])
                let listed = try await setup.run(["list"])
                #expect(listed.status == 0, "\(listed.stderr)")
                let ended = await agent.wait()
                #expect(ended.status == 0 && !ended.signaled, "\(ended.stderr)")
                #expect(!FileManager.default.fileExists(atPath: socket))
                let status = try await setup.run(["agent", "--status"])
                #expect(status.status == 3)
                #expect(status.stdout.hasPrefix("No agent runs for \(setup.home.path)"), "\(status.stdout)")
            }
        }
    }
}
