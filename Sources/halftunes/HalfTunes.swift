import ArgumentParser
import HalfTunesKit
import HalfTunesTerminal

/// `halftunes`: search the iTunes catalog, download previews, play them.
@main
struct HalfTunes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "halftunes",
        abstract: "Search the iTunes catalog for songs, download their previews, and play them.",
        discussion: ExitStatus.table,
        version: "0.1.0",
        subcommands: [
            SearchCommand.self,
            AlbumCommand.self,
            ArtistCommand.self,
            DownloadCommand.self,
            PauseCommand.self,
            ResumeCommand.self,
            CancelCommand.self,
            ListCommand.self,
            PlayCommand.self,
            RemoveCommand.self,
            TagCommand.self,
            LimitRateCommand.self,
            ExportCommand.self,
            ImportCommand.self,
            ServeCommand.self,
            AgentCommand.self,
            WaitCommand.self,
            DemoCommand.self,
            DemoCatalogCommand.self,
        ]
    )

    /// Runs the command line, with long runs of track ids joined first (see ``TrackIDCompaction``)
    /// and usage errors said in one style (``UsageErrors``).
    static func main() async {
        await UsageErrors.run(TrackIDCompaction.compact(Array(CommandLine.arguments.dropFirst())))
    }
}
