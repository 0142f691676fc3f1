import ArgumentParser
import Foundation
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

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Go through this proxy (http://host:port or socks5://host:port; \"\" for none) instead of $https_proxy, $http_proxy, $all_proxy (default: $HALFTUNES_PROXY, out of the process list); $no_proxy still names hosts reached directly.",
            valueName: "url"))
    var proxy: String?

    func configuration() throws -> CatalogConfiguration { try Self.configuration(of: self) }

    /// The same options, for an agent this command starts.
    var forwarded: [String] {
        var arguments: [String] = []
        if let catalog { arguments += ["--catalog", catalog] }
        if let cacert { arguments += ["--cacert", URL(fileURLWithPath: cacert).path] }
        if let proxy { arguments += ["--proxy", proxy] }
        return arguments
    }

    /// The catalog chosen by `--catalog` (when given), else `HALFTUNES_CATALOG`, else the live one,
    /// trusting what `--cacert` adds and through the proxies `--proxy` or the environment names;
    /// with no options (a command that takes none), the environment's choices alone.
    static func configuration(of options: CatalogOptions?) throws -> CatalogConfiguration {
        var configuration: CatalogConfiguration
        do { configuration = try CatalogSetting.configuration(explicit: options?.catalog) } catch {
            throw DownloadError(.badInput, error.description)
        }
        configuration.trustRoots = try trustRoots(explicit: options?.cacert)
        configuration.proxies = try proxies(explicit: options?.proxy)
        return configuration
    }

    /// The proxies of an explicit `--proxy`, else `HALFTUNES_PROXY` (the same, where no other user's
    /// `ps` sees it: how an agent gets a command's `--proxy`), else of the environment (as curl reads them).
    static func proxies(explicit: String?) throws -> ProxySettings {
        let chosen = explicit ?? ProcessInfo.processInfo.environment["HALFTUNES_PROXY"]
        do { return try ProxySettings.resolve(explicit: chosen) } catch { throw DownloadError(.badInput, error.message) }
    }

    /// The trust roots of an explicit file, else of `HALFTUNES_CA_BUNDLE`.
    static func trustRoots(explicit: String?) throws -> TrustRoots {
        do { return try TrustRoots.resolve(explicit: explicit) } catch {
            throw DownloadError(
                .badInput, explicit == nil ? "HALFTUNES_CA_BUNDLE: \(error.message)" : "--cacert: \(error.message)")
        }
    }
}
