import Foundation
import SystemBasics
import TestSupport
import Testing

/// `transfers-agent` as a program runs it: its socket's folder checked as the app's agent's is,
/// one agent per socket, this user's processes only, and an end of its own when idle.
@Suite("transfers-agent, the process", .timeLimit(.minutes(1)))
struct TransfersAgentTests {
    /// An environment whose runtime folder is `folder/run`.
    private func environment(_ folder: URL) -> [String: String] {
        ["XDG_RUNTIME_DIR": folder.appendingPathComponent("run").path, "HOME": folder.path]
    }

    private func socketFolder(_ folder: URL) -> URL { folder.appendingPathComponent("run/transfers") }

    /// Starts the agent and waits for the line saying it listens. Unless `arguments` say otherwise
    /// it never idles out: a test the machine holds up past the agent's 30 s would find it gone.
    private func start(_ folder: URL, _ arguments: [String] = ["--idle-exit", "0"]) async throws -> (ChildProcess, String) {
        let agent = try ChildProcess(try BuiltProducts.executable("transfers-agent"), arguments, environment: environment(folder))
        let socket = await agent.waitForLine { line in line.components(separatedBy: " listening on ").dropFirst().first }
        return (agent, try #require(socket, "\(agent.stderrSoFar)"))
    }

    @Test("a socket folder the group or others may enter is refused in one line, exit 2; nothing is made there")
    func folderMode() async throws {
        try await withTemporaryDirectory { folder in
            let socketFolder = socketFolder(folder)
            try FileManager.default.createDirectory(
                at: socketFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
            let result = try await ChildProcess.run(
                try BuiltProducts.executable("transfers-agent"), [], environment: environment(folder))
            #expect(result.status == 2)
            #expect(
                result.stderr
                    == "transfers-agent: \(socketFolder.path) is mode 750: the agent needs it 700 (chmod 700 \(socketFolder.path))\n"
            )
            #expect(filesIn(socketFolder).isEmpty)
        }
    }

    @Test("a second agent on the socket is refused naming the first; the first answers its status; --idle-exit ends it by itself")
    func oneAgentThenIdle() async throws {
        try await withTemporaryDirectory { folder in
            let (agent, socket) = try await start(folder)
            #expect(socket == socketFolder(folder).appendingPathComponent("agent.sock").path)
            var info = stat()
            #expect(lstat(socket, &info) == 0 && info.st_mode & 0o777 == 0o600)
            let first = try #require(PeerCredentials.probe(socketAt: socket).pid)
            let second = try await ChildProcess.run(
                try BuiltProducts.executable("transfers-agent"), [], environment: environment(folder))
            #expect(second.status == 2)
            #expect(second.stderr == "transfers-agent: a transfer agent already runs (process \(first)), on \(socket)\n")
            let status = try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "--unix-socket", socket, "http://agent/api/agent"])
            #expect(
                status.stdout.contains("\"pid\":\(first)") && status.stdout.contains("\"backgroundSessions\":[]"),
                "\(status.stdout)")
            agent.signal(SIGTERM)
            #expect(await agent.wait().status == 0)
            // With no session to watch, an agent told to idle one second ends by itself, and takes its socket away.
            let (idle, idleSocket) = try await start(folder, ["--idle-exit", "1"])
            let ended = await idle.wait()
            #expect(ended.status == 0 && !ended.signaled, "\(ended.stderr)")
            #expect(!FileManager.default.fileExists(atPath: idleSocket))
        }
    }

    @Test(
        "another user's connection is closed unanswered, even with the socket open to all",
        .enabled(
            if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "a client as another user needs root and setpriv: skipped"))
    func otherUserRefused() async throws {
        try await withTemporaryDirectory { folder in
            let (agent, socket) = try await start(folder)
            defer { agent.signal(SIGTERM) }
            chmod(folder.path, 0o755)
            chmod(folder.appendingPathComponent("run").path, 0o755)
            chmod(socketFolder(folder).path, 0o711)
            chmod(socket, 0o666)
            let curl = ["/usr/bin/curl", "-sS", "--max-time", "10", "--unix-socket", socket, "http://agent/api/agent"]
            let mine = try await ChildProcess.run(URL(filePath: curl[0]), Array(curl.dropFirst()))
            #expect(mine.status == 0 && mine.stdout.contains("\"backgroundSessions\""), "\(mine.stdout) \(mine.stderr)")
            let nobody = try await ChildProcess.run(
                URL(filePath: "/usr/bin/setpriv"), ["--reuid", "65534", "--regid", "65534", "--clear-groups", "--"] + curl)
            #expect([7, 52, 56].contains(nobody.status), "curl exit \(nobody.status): \(nobody.stderr)")
            #expect(nobody.stdout.isEmpty)
            let said = await agent.waitForLine(standardError: true) {
                $0.contains("a connection from uid 65534 refused") ? true : nil
            }
            #expect(said == true, "\(agent.stderrSoFar)")
        }
    }
}

extension PeerCredentials.Probe {
    fileprivate var pid: Int32? { if case .answered(let peer) = self { peer.pid } else { nil } }
}
