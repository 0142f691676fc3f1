import ArgumentParser
import HalfTunesKit
import HalfTunesWeb
import ITunesSearch
import Logging
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
    /// there is one (commands never open the session beside it), else this process's own, opened
    /// when first needed and closed afterwards whatever happens.
    ///
    /// - Parameter downloading: Whether downloads may run in this process (`download`, `resume`);
    ///   `false` for commands that only look or edit.
    ///   `tagging`: whether this process's downloads get their tags (a running server's are as it was started).
    ///   `durability`: what this process's downloads survive (a running server's, as it was started).
    func withControl<T>(
        downloading: Bool, catalog: CatalogOptions? = nil, tagging: TaggingOptions = TaggingOptions(),
        durability: Durability = .powerLoss, _ body: (any DownloadControl) async throws -> T
    ) async throws -> T {
        let control: any DownloadControl
        if let server = ServerInfo.read(from: resolved) {
            control = RemoteDownloadControl(server: server)
        } else {
            var configuration = try CatalogOptions.configuration(explicit: catalog?.catalog)
            // A command asks nothing twice: no answers kept (a batch's lookups would all stay).
            configuration.cacheCapacity = 0
            var session = TransferSessionConfiguration()
            session.startsTransfers = downloading
            session.durability = durability
            control = LocalDownloadControl(
                home: resolved, configuration: session, tagging: tagging,
                catalog: { [configuration] in
                    try ITunesCatalog(configuration: configuration, logger: Logger(label: "halftunes.catalog"))
                },
                logger: Logger(label: "halftunes.downloads"))
        }
        return try await control.closing { try await body($0) }
    }
}
