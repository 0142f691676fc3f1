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

    func configuration() throws -> CatalogConfiguration {
        do {
            return try CatalogSetting.configuration(explicit: catalog)
        } catch {
            throw Failure(error.description)
        }
    }
}
