import ArgumentParser
import HalfTunesKit
import HalfTunesTerminal

/// `halftunes list`: downloads in flight and the library.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Show downloads in flight and the library.")

    @Flag(name: .long, help: "Print the listing as JSON (the API's schema) instead of tables.") var json = false
    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let listing = try await homeOptions.withControl(downloading: false, catalog: catalogOptions) {
                try await $0.listing()
            }
            Terminal.write(
                json
                    ? try WireEncoding.line(listing) + "\n"
                    : ListingText.render(listing, libraryFolder: homeOptions.resolved.library, maxWidth: TerminalWindow.columns))
        }
    }
}
