import Foundation
import NetworkBasics

/// The redirects of one request, followed by the engine one hop at a time so that each hop is
/// checked before it is asked for: at most a number of hops, never the same URL twice, and only
/// to http(s) URLs.
struct RedirectTrail: Sendable {
    /// Hops followed before the request fails as `tooManyRedirects`.
    let maxRedirects: Int
    /// The URLs that redirected, in order.
    private(set) var visited: [String] = []

    init(maxRedirects: Int) { self.maxRedirects = maxRedirects }

    /// The URL that `location` (a `Location` field, absolute or relative) names from `current`,
    /// or why it is not followed.
    mutating func next(from current: String, location: String) -> Result<String, TransferError> {
        guard let base = URL(string: current), let target = URL(string: location, relativeTo: base)?.absoluteURL else {
            return .failure(
                TransferError(
                    .protocolViolation, "\(current) redirected to \(location.debugDescription), which is not a URL",
                    permanent: true))
        }
        if let problem = URLPolicy.problem(with: target) {
            return .failure(
                TransferError(.invalidURL, "\(current) redirected to \(target.absoluteString): \(problem)", permanent: true))
        }
        visited.append(current)
        let next = target.absoluteString
        guard visited.count <= maxRedirects, !visited.contains(next) else {
            return .failure(
                TransferError(
                    .tooManyRedirects, "too many redirects (or a redirect loop) for \(visited.first ?? current)",
                    permanent: true))
        }
        return .success(next)
    }
}
