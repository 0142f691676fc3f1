import ArgumentParser
import HalfTunesKit

/// `halftunes tag [ID...]`: writes tags and cover art into library files downloaded without them.
struct TagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag",
        abstract: "Write title, artist, album, genre, date and cover art into library files (all of them when no id is given).")

    @Argument(help: "Track ids in the library (default: every track in it).", transform: NumberIn.trackID)
    var ids: [Int] = []

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            try await homeOptions.withControl(downloading: false, catalog: catalogOptions) { control in
                try await LibraryRetagging.run(ids, control: control) { Terminal.write($0 + "\n") }
            }
        }
    }
}
