import ArgumentParser
import Foundation
import Logging
import SystemBasics
import TransfersAgent

/// `transfers-agent`: the per-user agent that takes over `ResumableURLSession` background
/// sessions when their processes end. A background session starts it when none answers; a
/// program that ships it beside its executable, or on `PATH`, gets transfers that outlive it.
@main
struct TransfersAgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transfers-agent",
        abstract: "Takes over ResumableURLSession background sessions when their processes end.",
        discussion: """
            Listens on $XDG_RUNTIME_DIR/transfers/agent.sock (else under /run/user/UID when it is \
            your 0700 folder, $XDG_STATE_HOME or ~/.local/state), in a folder only its user may enter, for that user's processes only.
            """)

    @Option(name: .long, help: "Seconds with no session to watch or run before it ends (0: never).")
    var idleExit: Int = 30

    @Option(name: .long, help: "The socket to listen on (default: the one sessions look for).")
    var socket: String?

    func run() async throws {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "transfers-agent")
        logger.logLevel = .info
        let place =
            socket.map {
                AgentSocket(folder: URL(fileURLWithPath: $0).deletingLastPathComponent(), socket: URL(fileURLWithPath: $0))
            }
            ?? TransfersAgentServer.socket()
        let path = place.socket.path
        do {
            try await TransfersAgentServer.run(
                socket: place, idleExit: idleExit > 0 ? .seconds(idleExit) : nil, logger: logger
            ) {
                FileHandle.standardOutput.write(Data("transfers-agent (process \(getpid())) listening on \(path)\n".utf8))
            }
        } catch let failure as TransfersAgentServer.Failure {
            FileHandle.standardError.write(Data("transfers-agent: \(failure)\n".utf8))
            throw ExitCode(2)
        }
    }
}
