import Foundation

/// Which part of the listing to send: `GET /api/downloads?limit=&after=` (a page of the library)
/// or `?since=` (only what changed after an earlier listing's ``Listing/cursor``).
///
/// Downloads in flight are few and always sent whole, except on a page after the first.
public struct ListingQuery: Sendable, Hashable {
    /// The most library items in one page (`nil`: all of them).
    public var limit: Int?
    /// Where the page starts: the ``Listing/next`` of the page before.
    public var after: String?
    /// Only the library items added and removed after this ``Listing/cursor``.
    public var since: String?

    /// The largest page a client may ask for.
    public static let maximumLimit = 1000
    /// Everything: every download in flight and the whole library.
    public static let all = ListingQuery()

    /// A query.
    public init(limit: Int? = nil, after: String? = nil, since: String? = nil) {
        self.limit = limit
        self.after = after
        self.since = since
    }

    /// A query from a request's parameters (`limit`, `after`, `since`), checked.
    ///
    /// - Throws: ``DownloadError/Code/badInput`` with a one-line reason for a value out of range.
    public init(parameter: (String) -> String?) throws(DownloadError) {
        self.init(limit: nil, after: parameter("after"), since: parameter("since"))
        if let text = parameter("limit") {
            guard let limit = Int(text) else {
                throw DownloadError(.badInput, "limit is a number from 1 to \(Self.maximumLimit)")
            }
            self.limit = limit
        }
        _ = try checked()
    }

    /// The query's numbers, or the reason it is not one.
    public func checked() throws(DownloadError) -> (limit: Int?, after: Int64?, since: Int64?) {
        if let limit, !(1...Self.maximumLimit).contains(limit) {
            throw DownloadError(.badInput, "limit is a number from 1 to \(Self.maximumLimit)")
        }
        func cursor(_ text: String?, _ name: String) throws(DownloadError) -> Int64? {
            guard let text else { return nil }
            guard let value = Int64(text), value >= 0 else {
                throw DownloadError(
                    .badInput, "\(name) is a cursor from an earlier listing (a number), not \"\(text.prefix(40))\"")
            }
            return value
        }
        let after = try cursor(after, "after")
        let since = try cursor(since, "since")
        if after != nil && since != nil {
            throw DownloadError(.badInput, "ask for a page (after) or for changes (since), not both")
        }
        return (limit, after, since)
    }

    /// The query's items for a URL.
    public var queryItems: [URLQueryItem] {
        [("limit", limit.map(String.init)), ("after", after), ("since", since)].compactMap { name, value in
            value.map { URLQueryItem(name: name, value: $0) }
        }
    }
}
