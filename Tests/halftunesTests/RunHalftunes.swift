import Foundation
import TestSupport

/// The environment that gives `halftunes` its home and catalog, as a user's shell would.
func halftunesEnvironment(home: URL, catalog: URL) -> [String: String] {
    ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": catalog.absoluteString]
}

/// Runs the built `halftunes` with `arguments`, its home and catalog given by the environment
/// (``halftunesEnvironment(home:catalog:)``).
func runHalftunes(_ arguments: [String], home: URL, catalog: URL) async throws -> ChildProcess.Result {
    try await ChildProcess.run(
        try BuiltProducts.halftunes, arguments, environment: halftunesEnvironment(home: home, catalog: catalog))
}

/// The bytes received a line of `--json` output reports, when it is a `progress` event that has
/// reached `least` bytes (for `ChildProcess.waitForLine`).
func receivedBytes(_ line: String, atLeast least: Int) -> Int? {
    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        object["event"] as? String == "progress", let received = object["receivedBytes"] as? Int, received >= least
    else { return nil }
    return received
}

/// The JSON objects of `--json` output, one a line, in order (lines that are not one are skipped).
func ndjson(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}
