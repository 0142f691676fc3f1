import ArgumentParser
import HalfTunesKit
import Logging
import Transfers

/// `--home DIR`, shared by every command that touches downloads or the library.
struct HomeOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where HalfTunes keeps its data (default: $HALFTUNES_HOME, else $XDG_DATA_HOME/halftunes, else ~/.local/share/halftunes).",
            valueName: "dir"))
    var home: String?

    var resolved: HalfTunesHome { HalfTunesHome.resolve(explicit: home) }

    /// The `halftunes serve` that owns this home's downloads, if one is running: commands then act
    /// through its API instead of opening the session beside it.
    var runningServer: ServerClient? { ServerInfo.read(from: resolved).map(ServerClient.init) }

    /// Opens the app's data; `downloading: false` for commands that only look or edit.
    func openService(downloading: Bool) async throws -> DownloadService {
        var configuration = TransferSessionConfiguration()
        configuration.startsTransfers = downloading
        return try await DownloadService.open(
            home: resolved, configuration: configuration, logger: Logger(label: "halftunes.downloads"))
    }

    /// Acts on the downloads: through the running server's API if there is one (`remote`), else
    /// on the session opened (not downloading) for the time of `local`, closed whatever happens.
    func act(remote: (ServerClient) async throws -> Void, local: (DownloadService) async throws -> Void) async throws {
        if let server = runningServer { return try await remote(server) }
        let service = try await openService(downloading: false)
        do {
            try await local(service)
        } catch {
            await service.close()
            throw error
        }
        await service.close()
    }
}
