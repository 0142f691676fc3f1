import DemoCatalog
import Foundation
import SystemBasics
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The agent socket-activated, as `halftunes-agent.socket` has systemd do it: systemd listens on
/// the agent's socket and starts the agent on the first connection, handing it the listening
/// socket (`LISTEN_FDS`). `systemd-socket-activate`, systemd's own tool for this protocol,
/// stands in for the user manager (no manager runs in a test).
@Suite("the agent socket-activated", .timeLimit(.minutes(2)))
struct AgentActivationTests {
    static var activator: String? {
        ["/usr/bin/systemd-socket-activate", "/bin/systemd-socket-activate"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    @Test("with the socket unit installed, a command starts it; the first connection starts the agent on the handed socket")
    func throughTheSocketUnit() async throws {
        let activator = try #require(Self.activator, "systemd-socket-activate is missing: apt-get install systemd")
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let setup = try AgentSetup(folder: folder, catalog: url)
                // systemctl's stand-in: asked to start the socket unit, it listens on the socket
                // as the unit says and starts the agent on the first connection, with the unit's
                // environment (the manager's runtime and data folders, the catalog).
                let requests = folder.appendingPathComponent("systemctl.log")
                let runtime = setup.runtime.path
                let data = folder.appendingPathComponent("data").path
                let environment = try setup.withSystemdStandIn(
                    folder: folder, units: ["halftunes-agent.socket", "halftunes-agent.service"],
                    script: """
                        echo "$*" >> '\(requests.path)'
                        [ "$4" = halftunes-agent.socket ] || exit 5
                        XDG_RUNTIME_DIR='\(runtime)' XDG_DATA_HOME='\(data)' HALFTUNES_CATALOG='\(url.absoluteString)' \\
                          setsid '\(activator)' -E XDG_RUNTIME_DIR -E XDG_DATA_HOME -E HALFTUNES_CATALOG \\
                          -l '\(runtime)/halftunes/agent.sock' '\(try BuiltProducts.halftunes.path)' agent --idle-exit 0 \\
                          </dev/null >'\(folder.path)/activation.log' 2>&1 &
                        """)
                let home = folder.appendingPathComponent("data/halftunes")
                try await setup.stoppingAgent(environment: environment) {
                    let result = try await ChildProcess.run(
                        try BuiltProducts.halftunes, ["download", "1001"], environment: environment)
                    let log = (try? String(contentsOfFile: folder.path + "/activation.log", encoding: .utf8)) ?? ""
                    #expect(result.status == 0, "\(result.stderr)\n\(log)")
                    #expect(
                        try String(contentsOf: requests, encoding: .utf8) == "--user start --no-block halftunes-agent.socket\n")
                    #expect(log.contains("(the socket systemd handed it)"), "\(log)")
                    // The agent's own word for its process, and the socket left as the unit says.
                    let status = try await setup.run(["agent", "--status"], environment: environment)
                    #expect(status.stdout.contains("(started by systemd on its socket)"), "\(status.stdout)")
                    var info = stat()
                    #expect(stat(runtime + "/halftunes/agent.sock", &info) == 0)
                    #expect(info.st_mode & 0o777 == 0o600)
                    #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("agent.log").path))
                    let library = filesIn(home.appendingPathComponent("library"))
                    #expect(library.contains { $0.contains("[1001]") }, "\(library)")
                    #expect(catalog.previewRequests.count == 1)
                }
            }
        }
    }

    @Test("a socket handed over that listens elsewhere than the agent's path: one line, exit 2, nothing served")
    func wrongSocket() async throws {
        let activator = try #require(Self.activator, "systemd-socket-activate is missing: apt-get install systemd")
        try await withTemporaryDirectory { folder in
            let setup = try AgentSetup(folder: folder, catalog: URL(string: "http://127.0.0.1:9")!)
            let other = folder.appendingPathComponent("other.sock").path
            let agent = try ChildProcess(
                URL(fileURLWithPath: activator),
                ["-E", "XDG_RUNTIME_DIR", "-E", "HALFTUNES_HOME", "-l", other, try BuiltProducts.halftunes.path, "agent"],
                environment: setup.environment)
            // The first connection starts it (connect, read who listens, hang up).
            var probe = PeerCredentials.Probe.absent
            for _ in 0..<200 {
                probe = PeerCredentials.probe(socketAt: other)
                if probe != .absent { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(probe != .absent)
            let result = await agent.wait()
            #expect(result.status == 2)
            // The home's own socket (HALFTUNES_HOME names it: agent-<hash>.sock) in the runtime folder.
            let line = "halftunes: systemd passed 1 socket, but it listens on \(other); the agent listens on "
            let said = try #require(result.stderr.split(separator: "\n").last { $0.hasPrefix("halftunes: ") }, "\(result.stderr)")
            #expect(said.hasPrefix(line + setup.socketFolder.path + "/agent-") && said.hasSuffix(".sock"), "\(said)")
        }
    }

    @Test("the descriptors systemd passes are taken only by the process LISTEN_PID names")
    func passedDescriptors() {
        let mine: [String: String] = ["LISTEN_PID": "42", "LISTEN_FDS": "2"]
        #expect(SocketActivation.passedDescriptors(environment: mine, pid: 42) == 3..<5)
        #expect(SocketActivation.passedDescriptors(environment: mine, pid: 43).isEmpty)
        #expect(SocketActivation.passedDescriptors(environment: ["LISTEN_FDS": "1"], pid: 42).isEmpty)
        #expect(SocketActivation.passedDescriptors(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "x"], pid: 42).isEmpty)
        #expect(SocketActivation.passedDescriptors(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "0"], pid: 42).isEmpty)
    }
}
