import DemoCatalog
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A home, a catalog and a runtime folder of the test's own (the agent's socket goes there).
struct AgentSetup {
    let home: URL
    let runtime: URL
    let environment: [String: String]

    init(folder: URL, catalog: URL) throws {
        home = folder.appendingPathComponent("home")
        runtime = folder.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        environment = [
            "HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": catalog.absoluteString, "XDG_RUNTIME_DIR": runtime.path,
            "HALFTUNES_AGENT": "1",
        ]
    }

    /// The folder the agent's socket is in.
    var socketFolder: URL { runtime.appendingPathComponent("halftunes") }

    func run(_ arguments: [String], environment: [String: String]? = nil) async throws -> ChildProcess.Result {
        try await ChildProcess.run(try BuiltProducts.halftunes, arguments, environment: environment ?? self.environment)
    }

    /// Starts an agent and waits until it listens; returns it and its socket's path.
    func startAgent(_ extra: [String] = ["--idle-exit", "0"]) async throws -> (ChildProcess, String) {
        let agent = try ChildProcess(try BuiltProducts.halftunes, ["agent"] + extra, environment: environment)
        let socket: String? = await agent.waitForLine { line in
            line.range(of: " listening on ").map { String(line[$0.upperBound...].split(separator: " ")[0]) }
        }
        guard let socket else {
            let result = await agent.wait()
            Issue.record("the agent did not start: \(result.stderr)")
            throw CancellationError()
        }
        return (agent, socket)
    }
    /// `halftunes serve` on any free port with this environment (agent on); its page's URL.
    func serve() async throws -> (ChildProcess, URL) {
        let server = try ChildProcess(try BuiltProducts.halftunes, ["serve", "--port", "0"], environment: environment)
        let url = await server.waitForLine { line -> URL? in
            line.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression).flatMap { URL(string: String(line[$0])) }
        }
        return (server, try #require(url, "serve did not start: \(server.stderrSoFar)"))
    }

    /// The running agent's process, as `agent --status` names it (`nil`: none runs).
    func agentPID(environment: [String: String]? = nil) async throws -> Int32? {
        let status = try await run(["agent", "--status"], environment: environment)
        guard status.status == 0, let range = status.stdout.firstRange(of: "process ") else { return nil }
        return Int32(status.stdout[range.upperBound...].prefix { $0.isNumber })
    }

    /// Stops the agent a command started (SIGTERM), and waits until it has gone.
    func stopAgent(environment: [String: String]? = nil) async throws {
        guard let pid = try await agentPID(environment: environment) else { return }
        kill(pid, SIGTERM)
        for _ in 0..<200 where kill(pid, 0) == 0 { try await Task.sleep(for: .milliseconds(25)) }
    }

    /// Runs `body`, then stops the agent its commands started, however `body` ended.
    func stoppingAgent(environment: [String: String]? = nil, _ body: () async throws -> Void) async throws {
        do { try await body() } catch {
            try? await stopAgent(environment: environment)
            throw error
        }
        try await stopAgent(environment: environment)
    }

    /// The library's entries of `list --json`, by track id.
    func library() async throws -> [Int: [String: Any]] {
        let list = try await run(["list", "--json"])
        let listed = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any]
        let entries = listed?["library"] as? [[String: Any]] ?? []
        return Dictionary(entries.compactMap { entry in (entry["id"] as? Int).map { ($0, entry) } }) { first, _ in first }
    }

    /// Checks that each of `ids` is in `library` with the catalog's audio, byte for byte.
    func expectByteExact(_ ids: [Int], in library: [Int: [String: Any]], catalog: DemoCatalog) async throws {
        for id in ids {
            let file = try #require(library[id]?["file"] as? String, "\(id) not in the library: \(library.keys.sorted())")
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            let source = try #require(await catalog.preview(for: id)).data
            #expect(WAVAudio.audioHash(data) == WAVAudio.audioHash(source))
        }
    }

    /// A user manager's stand-in: `units` installed (empty) in `folder`'s `config/systemd/user`,
    /// `systemctl` on `PATH` running `script` (`$*`: what it was asked, `$4`: the unit). Returns
    /// the environment of a command of the default home (no `HALFTUNES_HOME`, no catalog: the
    /// unit's) with that configuration folder, `folder`'s `data` and the stand-in first on `PATH`.
    func withSystemdStandIn(folder: URL, units: [String], script: String) throws -> [String: String] {
        let bin = folder.appendingPathComponent("bin")
        let unitFolder = folder.appendingPathComponent("config/systemd/user")
        for made in [bin, unitFolder] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
        for unit in units { try "[Unit]\n".write(to: unitFolder.appendingPathComponent(unit), atomically: true, encoding: .utf8) }
        let systemctl = bin.appendingPathComponent("systemctl")
        try ("#!/bin/sh\n" + script).write(to: systemctl, atomically: true, encoding: .utf8)
        chmod(systemctl.path, 0o755)
        var environment = self.environment
        environment["HALFTUNES_HOME"] = nil
        environment["HALFTUNES_CATALOG"] = nil
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = folder.appendingPathComponent("config").path
        environment["PATH"] = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return environment
    }
}
