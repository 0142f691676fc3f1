import ArgumentParser
import Foundation
import HalfTunesKit

/// `halftunes list`: downloads in flight and the library.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Show downloads in flight and the library.")

    @Flag(name: .long, help: "Print the listing as JSON (the API's schema) instead of tables.") var json = false
    @OptionGroup var homeOptions: HomeOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let listing = try await homeOptions.withControl(downloading: false) { try await $0.listing() }
            if json {
                Terminal.write(try WireEncoding.line(listing) + "\n")
                return
            }
            if listing.downloads.isEmpty && listing.library.isEmpty {
                Terminal.write("Nothing downloaded yet. Try: halftunes search TERM, then halftunes download ID.\n")
                return
            }
            if !listing.downloads.isEmpty {
                Terminal.write("Downloads\n")
                for item in listing.downloads {
                    let progress = ProgressText.progress(received: item.receivedBytes, expected: item.expectedBytes)
                    let reason = item.reason.map { " — \($0)" } ?? ""
                    Terminal.write(
                        "  \(item.state.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)) \(progress)  "
                            + "\(DisplayWidth.printable(item.name)) — \(DisplayWidth.printable(item.artist)) [\(item.id)]\(reason)\n"
                    )
                }
            }
            if !listing.library.isEmpty {
                Terminal.write("Library (\(homeOptions.resolved.library.path))\n")
                for item in listing.library {
                    let name = item.file.map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""
                    Terminal.write("  \(name)  \(ProgressText.bytes(item.receivedBytes))\n")
                }
            }
        }
    }
}
