import Foundation
import NetworkBasics

/// What is said of a page's address before it listens.
public enum WebServer {
    /// What to tell the user before listening on `host`: a warning unless it is a loopback address.
    public static func exposureWarning(for host: String) -> String? {
        guard HostClass(host) != .loopback else { return nil }
        return "warning: listening on \(host): anyone who can reach this address can use HalfTunes"
    }
}
