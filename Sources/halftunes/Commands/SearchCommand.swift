import ArgumentParser
import Foundation
import HalfTunesKit

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

    @Flag(name: .long, help: "Print the results as JSON (the API's schema) instead of a table.")
    var json = false

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let text = term.joined(separator: " ")
            let found = try await homeOptions.withControl(downloading: false, catalog: catalogOptions) {
                try await $0.search(term: text, limit: limit, country: country)
            }
            if json {
                Terminal.write(try WireEncoding.line(found) + "\n")
            } else if found.results.isEmpty {
                Terminal.write("No songs found for \"\(DisplayWidth.printable(text.trimmingCharacters(in: .whitespaces)))\".\n")
            } else {
                Terminal.write(TrackTable(maxWidth: TerminalWindow.columns).render(found.results))
            }
        }
    }
}
