import Foundation
import ITunesSearch
import NetworkBasics

/// Which catalog HalfTunes talks to: `--catalog URL`, else `HALFTUNES_CATALOG`, else the live
/// iTunes API.
public enum CatalogSetting {
    /// The catalog configuration for an explicit choice and the environment.
    ///
    /// A catalog on this machine (a DemoCatalog) is not paced; the live API is held to 20 calls a
    /// minute, its documented limit.
    public static func configuration(
        explicit: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SettingError) -> CatalogConfiguration {
        let chosen = [explicit, environment["HALFTUNES_CATALOG"]].compactMap { $0 }.first { !$0.isEmpty }
        guard let chosen else { return CatalogConfiguration() }
        guard let url = URL(string: chosen), URLPolicy.problem(with: url) == nil, let host = url.host
        else { throw SettingError("the catalog URL must look like https://host[:port], not \"\(chosen)\"") }
        var configuration = CatalogConfiguration(baseURL: url)
        if HostClass(host) == .loopback { configuration.callsPerMinute = nil }
        return configuration
    }
}

/// A setting (flag or environment variable) has a value HalfTunes cannot use.
public struct SettingError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, in one line.
    public let description: String
    init(_ description: String) { self.description = description }
}
