import ArgumentParser
import Foundation
import HalfTunesKit
import ITunesSearch
import Logging

/// `halftunes search TERM`: a table of songs, or JSON with `--json`.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the catalog for songs.")

    @Argument(help: "What to search for (title, artist or album words).")
    var term: [String]

    @Option(name: .long, help: "How many results, 1 to 200.")
    var limit: Int = 50

    @Option(name: .long, help: "Two-letter store country.")
    var country: String = "US"

    @Flag(name: .long, help: "Print a JSON array instead of a table.")
    var json = false

    @OptionGroup var catalogOptions: CatalogOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let query = try SearchQuery(term: term.joined(separator: " "), country: country, limit: limit)
            let catalog = try ITunesCatalog(
                configuration: try catalogOptions.configuration(), logger: Logger(label: "halftunes.catalog"))
            let tracks = try await catalog.search(query)
            if json {
                Terminal.write(try JSONOutput.encode(tracks) + "\n")
            } else if tracks.isEmpty {
                Terminal.write("No songs found for \"\(DisplayWidth.printable(query.term))\".\n")
            } else {
                Terminal.write(TrackTable(maxWidth: Terminal.columns).render(tracks))
            }
        }
    }
}
