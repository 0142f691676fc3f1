import Foundation

/// Runs `body` with the URL of a port on 127.0.0.1 that refuses connections: a port held by a
/// socket that never listens, so no other test's server can take it meanwhile (closing a bound
/// port would free it for them).
public func withRefusingPort<T>(_ body: (URL) async throws -> T) async throws -> T {
    let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard holder >= 0 else { throw RefusingPortError.noSocket }
    defer { close(holder) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(holder, $0, length) == 0 && getsockname(holder, $0, &length) == 0
        }
    }
    guard bound else { throw RefusingPortError.notBound }
    return try await body(URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!)
}

enum RefusingPortError: Error { case noSocket, notBound }
