import AsyncHTTPClient
import Foundation
import NIOHTTP1
import TestSupport

/// The environment that gives `halftunes` its home and catalog, as a user's shell would; with
/// `inProcess`, also `HALFTUNES_AGENT=0` (each command downloads in its own process: only for the
/// tests about that mode).
func halftunesEnvironment(home: URL, catalog: URL, inProcess: Bool = false) -> [String: String] {
    ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": catalog.absoluteString]
        .merging(inProcess ? ["HALFTUNES_AGENT": "0"] : [:]) { $1 }
}

/// Runs the built `halftunes` with `arguments`, its home and catalog given by the environment
/// (``halftunesEnvironment(home:catalog:inProcess:)``).
func runHalftunes(_ arguments: [String], home: URL, catalog: URL, inProcess: Bool = false) async throws
    -> ChildProcess.Result
{
    try await ChildProcess.run(
        try BuiltProducts.halftunes, arguments,
        environment: halftunesEnvironment(home: home, catalog: catalog, inProcess: inProcess))
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

/// The page's request token, read from its `halftunes-token` meta tag as the page's script reads it.
func pageToken(at url: URL) async throws -> String {
    let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url.absoluteString + "/"), timeout: .seconds(10))
    let html = String(buffer: try await response.body.collect(upTo: 1 << 20))
    guard let range = html.range(of: #"name="halftunes-token" content="[^"]+""#, options: .regularExpression) else {
        throw PageTokenMissing(url: url)
    }
    return String(html[range].dropLast().split(separator: "\"").last!)
}

/// The page at `url` had no token meta tag.
struct PageTokenMissing: Error, CustomStringConvertible {
    let url: URL
    var description: String { "the page at \(url) has no halftunes-token meta tag" }
}

/// A state-changing API call as the page makes it (`Origin` and token), answering its status.
func pageCall(_ method: HTTPMethod, _ path: String, at url: URL, token: String) async throws -> UInt {
    var request = HTTPClientRequest(url: url.absoluteString + path)
    request.method = method
    request.headers.add(name: "Origin", value: url.absoluteString)
    request.headers.add(name: "X-HalfTunes-Token", value: token)
    return try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status.code
}
