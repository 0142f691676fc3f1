import Foundation
import TestSupport

/// Runs the built `halftunes` with `arguments`, its home and catalog given by the environment, as
/// a user's shell would (`HALFTUNES_HOME`, `HALFTUNES_CATALOG`).
func runHalftunes(_ arguments: [String], home: URL, catalog: URL) async throws -> ChildProcess.Result {
    try await ChildProcess.run(
        try BuiltProducts.halftunes, arguments,
        environment: ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": catalog.absoluteString])
}
