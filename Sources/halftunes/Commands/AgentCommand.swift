import ArgumentParser
import Foundation
import HalfTunesAgent
import HalfTunesClient
import HalfTunesKit
import SystemBasics

/// `halftunes agent`: the home's transfer agent. While it runs, every other command acts through
/// it (on its Unix socket), so downloads go on when the command that started them ends.
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Run the transfer agent: downloads go on after the command that started them ends.",
        discussion: """
            While the agent runs, the other commands act through it on its Unix socket \
            ($XDG_RUNTIME_DIR/halftunes/agent.sock), which only your user may use. It ends by itself \
            once it has had no download and no client for --idle-exit seconds.
            """)

    @Option(
        name: .long, help: ArgumentHelp("Seconds with nothing to do before the agent ends (0: never).", valueName: "seconds"),
        transform: NumberIn.parser(0...31_536_000))
    var idleExit = 30

    @Flag(name: .long, help: "Say whether the agent runs: its process, socket and downloads (exit 3 when it does not).")
    var status = false

    /// The launcher's pipe (``ReadinessPipe``): a byte is written to it once the socket listens.
    @Option(name: .long, help: .hidden) var readyFd: Int32?

    /// Track ids to look up in the catalog at once (``LookAhead``): the batch of the command
    /// starting the agent, whose start then needs no lookup of its own.
    @Option(name: .long, help: .hidden, transform: TrackIDList.parse) var lookAhead: TrackIDList?

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var tagging: TaggingOption
    @OptionGroup var rate: RateOption
    @OptionGroup var durability: DurabilityOption

    func run() async throws {
        Terminal.bootstrapLogging()
        let home = homeOptions.resolved
        let address = AgentAddress.resolve(for: home)
        if status { return try await sayStatus(home: home, address: address) }
        let readyFd = readyFd
        if let readyFd { ReadinessPipe.keepToSelf(readyFd) }
        try await reportingFailures {
            let configuration = try catalogOptions.configuration()
            try await AgentServer.run(
                home: home, address: address, idleExit: idleExit == 0 ? nil : .seconds(idleExit),
                tagging: tagging.resolved, durability: durability.resolved, bandwidthLimit: try rate.resolved(),
                catalogConfiguration: configuration, lookAhead: lookAhead?.values ?? [],
                say: Terminal.say
            ) {
                if let readyFd { ReadinessPipe.signal(readyFd) }
            }
        }
    }

    private func sayStatus(home: HalfTunesHome, address: AgentAddress) async throws {
        switch address.probe() {
        case .running: break
        case .foreign(let uid): try await reportingFailures { throw HomeOptions.foreign(address, uid: uid) }
        case .absent, .stale:
            Terminal.write("No agent runs for \(home.root.path) (it would listen on \(address.socket.path)).\n")
            throw ExitCode(ExitStatus.of(.notFound))
        }
        try await reportingFailures {
            // The agent's own word for its process: a socket systemd holds names systemd's.
            let status = try await AgentStatus.read(agent: address)
            let control = RemoteDownloadControl(agent: address, pid: status.pid)
            let listing = try await control.listing(ListingQuery(limit: 1))
            let running = listing.downloads.filter { $0.state == .downloading || $0.state == .queued }.count
            let activated = status.socketActivated ? " (started by systemd on its socket)" : ""
            Terminal.write(
                """
                The agent runs: process \(status.pid), socket \(status.socket)\(activated)
                Home: \(status.home)
                Downloads: \(listing.downloads.count) (\(running) queued or running); library: \(listing.libraryCount ?? listing.library.count) tracks

                """)
        }
    }
}
