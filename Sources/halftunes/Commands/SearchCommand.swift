import ArgumentParser
import Foundation
import HalfTunesKit
import HalfTunesTerminal
import ITunesSearch

/// `halftunes search TERM`: a table of songs, or JSON with `--json`.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the catalog for songs.")

    @Argument(help: "What to search for (title, artist or album words).")
    var term: [String]

    @Option(name: .long, help: "How many results, 1 to 200.", transform: NumberIn.parser(SearchQuery.limitRange))
    var limit: Int = 50

    @Option(name: .long, help: "Two-letter store country.", transform: Self.country)
    var country: String = "US"

    /// Two ASCII letters.
    private static func country(_ text: String) throws -> String {
        guard text.count == 2, text.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic }) else {
            throw ValidationError("a two-letter country code such as US")
        }
        return text
    }

    @Option(name: .customLong("in"), help: "Match the term against one field only: song, artist or album.")
    var field: SearchQuery.Field?

    @Option(name: .long, help: "Include explicit songs: yes (the default) or no.")
    var explicit: YesNo?

    @Option(name: .customLong("lang"), help: "The language of the answers: en_us or ja_jp.", transform: Self.language)
    var language: String?

    @Option(
        name: .long, help: "Skip this many results: the next page is --offset 50 with --limit 50.",
        transform: NumberIn.parser(0...Int.max))
    var offset: Int?

    @Flag(name: .long, help: "Print the results as JSON (the API's schema) instead of a table.")
    var json = false

    enum YesNo: String, ExpressibleByArgument, CaseIterable { case yes, no }

    /// en_us or ja_jp.
    private static func language(_ text: String) throws -> String {
        guard SearchQuery.languages.contains(text.lowercased()) else { throw ValidationError("en_us or ja_jp") }
        return text.lowercased()
    }

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let text = term.joined(separator: " ")
            let found = try await homeOptions.withControl(downloading: false, catalog: catalogOptions) {
                try await $0.search(
                    SearchRequest(
                        term: text, limit: limit, country: country, field: field, explicit: explicit.map { $0 == .yes },
                        language: language, offset: offset))
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

extension SearchQuery.Field: ExpressibleByArgument {}
