import ArgumentParser
import HalfTunesKit
import ITunesSearch
import NetworkBasics

/// `--catalog URL` and `--cacert FILE`, shared by every command that talks to the catalog or
/// downloads.
struct CatalogOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The catalog's base URL (default: $HALFTUNES_CATALOG, else https://itunes.apple.com).",
            valueName: "url"))
    var catalog: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also trust the certificate authorities in this PEM file for HTTPS, as curl's --cacert (default: $HALFTUNES_CA_BUNDLE); the system's stay trusted.",
            valueName: "file"))
    var cacert: String?

    func configuration() throws -> CatalogConfiguration {
        try Self.configuration(explicit: catalog, trust: trustRoots())
    }

    /// The authorities `--cacert` (else `HALFTUNES_CA_BUNDLE`) adds to the system's.
    func trustRoots() throws -> TrustRoots { try Self.trustRoots(explicit: cacert) }

    /// The catalog chosen by `--catalog` (when given), else `HALFTUNES_CATALOG`, else the live one.
    static func configuration(explicit: String?, trust: TrustRoots) throws -> CatalogConfiguration {
        do {
            var configuration = try CatalogSetting.configuration(explicit: explicit)
            configuration.trustRoots = trust
            return configuration
        } catch {
            throw DownloadError(.badInput, error.description)
        }
    }

    /// The trust roots of an explicit file, else of `HALFTUNES_CA_BUNDLE`.
    static func trustRoots(explicit: String?) throws -> TrustRoots {
        do { return try TrustRoots.resolve(explicit: explicit) } catch {
            throw DownloadError(
                .badInput, explicit == nil ? "HALFTUNES_CA_BUNDLE: \(error.message)" : "--cacert: \(error.message)")
        }
    }
}
