import ArgumentParser
import HalfTunesKit
import ITunesSearch

/// `--catalog URL`, shared by every command that talks to the catalog.
struct CatalogOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The catalog's base URL (default: $HALFTUNES_CATALOG, else https://itunes.apple.com).",
            valueName: "url"))
    var catalog: String?

    func configuration() throws -> CatalogConfiguration { try Self.configuration(explicit: catalog) }

    /// The catalog chosen by `--catalog` (when given), else `HALFTUNES_CATALOG`, else the live one.
    static func configuration(explicit: String?) throws -> CatalogConfiguration {
        do {
            return try CatalogSetting.configuration(explicit: explicit)
        } catch {
            throw DownloadError(.badInput, error.description)
        }
    }
}
