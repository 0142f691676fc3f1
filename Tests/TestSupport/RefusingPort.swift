import Foundation

/// Runs `body` with the URL of a port on 127.0.0.1 that refuses connections: a port held by a
/// socket that never listens, so no other test's server can take it meanwhile (closing a bound
/// port would free it for them).
public func withRefusingPort<T>(_ body: (URL) async throws -> T) async throws -> T {
    let (holder, port) = try LoopbackListener.bound(listening: nil)
    defer { close(holder) }
    return try await body(URL(string: "http://127.0.0.1:\(port)")!)
}
