import ArgumentParser
import HalfTunesKit
import HalfTunesTerminal

/// `halftunes limit-rate [RATE|none]`: shows or changes the cap on the running agent's downloads.
struct LimitRateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "limit-rate",
        abstract: "Show or change the cap on all downloads of the running agent (500k, 2M, or none).")

    @Argument(help: "Bytes a second as curl writes them (500k, 2M; powers of 1024), or none; nothing shows the cap.")
    var rate: String?

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions

    func validate() throws {
        if let rate, rate != "none", RateSetting.parse(rate) == nil {
            throw ValidationError("\"\(rate)\" is not a rate such as 500k, 2M or 1048576 (bytes a second), nor none")
        }
    }

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let cap = try await homeOptions.withControl(downloading: false, catalog: catalogOptions) { control in
                guard let rate else { return try await control.bandwidthLimit() }
                return try await control.setBandwidthLimit(rate == "none" ? nil : RateSetting.parse(rate))
            }
            Terminal.write(
                cap.map { "Downloads capped at \(ProgressText.rate(bytesPerSecond: Double($0))) in all.\n" }
                    ?? "No cap on downloads.\n")
        }
    }
}
