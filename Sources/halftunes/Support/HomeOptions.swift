import ArgumentParser
import HalfTunesKit
import HalfTunesWeb
import TransferEngine

/// `--home DIR`, shared by every command that touches downloads or the library.
struct HomeOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where HalfTunes keeps its data (default: $HALFTUNES_HOME, else $XDG_DATA_HOME/halftunes, else ~/.local/share/halftunes).",
            valueName: "dir"))
    var home: String?

    var resolved: HalfTunesHome { HalfTunesHome.resolve(explicit: home) }

    /// Runs `body` with the command's one ``DownloadControl``: the running `halftunes serve`'s when
    /// there is one, else the running agent's (commands never open the session beside either),
    /// else this process's own, opened when first needed and closed afterwards whatever happens.
    ///
    /// - Parameter downloading: Whether downloads may run in this process (`download`, `resume`);
    ///   `false` for commands that only look or edit.
    ///   `tagging`: whether this process's downloads get their tags (a running server's are as it was started).
    ///   `durability`: what this process's downloads survive (a running server's, as it was started).
    ///   `bandwidthLimit`: this process's cap on all its downloads together, bytes a second.
    func withControl<T>(
        downloading: Bool, catalog: CatalogOptions? = nil, tagging: TaggingOptions = TaggingOptions(),
        durability: Durability = .powerLoss, bandwidthLimit: Int? = nil, _ body: (any DownloadControl) async throws -> T
    ) async throws -> T {
        let control: any DownloadControl
        let agent = AgentAddress.resolve(for: resolved)
        if let server = ServerInfo.read(from: resolved) {
            control = RemoteDownloadControl(server: server)
        } else if case .running(let pid) = agent.probe() {
            control = RemoteDownloadControl(agent: agent, pid: pid)
        } else {
            control = LocalDownloadControl.forCommand(
                home: resolved, catalog: try CatalogOptions.configuration(of: catalog),
                downloading: downloading, tagging: tagging, durability: durability, bandwidthLimit: bandwidthLimit)
        }
        return try await control.closing { try await body($0) }
    }
}
