import ITunesSearch

/// A search as every front end asks it: the term, how many, the store, and the catalog's filters
/// (`GET /api/search?term=&limit=&country=&in=&explicit=&lang=&offset=`).
public struct SearchRequest: Sendable, Hashable {
    public var term: String
    public var limit: Int
    public var country: String
    /// The one field the term is matched against (`in=song|artist|album`); `nil`: all.
    public var field: SearchQuery.Field?
    /// Whether explicit songs are included (`explicit=yes|no`); `nil`: yes.
    public var explicit: Bool?
    /// The language of the answers (`lang=en_us|ja_jp`).
    public var language: String?
    /// How many results to skip: the next page (`offset=N`).
    public var offset: Int?

    /// A search.
    public init(
        term: String, limit: Int = 50, country: String = "US", field: SearchQuery.Field? = nil, explicit: Bool? = nil,
        language: String? = nil, offset: Int? = nil
    ) {
        (self.term, self.limit, self.country, self.field) = (term, limit, country, field)
        (self.explicit, self.language, self.offset) = (explicit, language, offset)
    }

    /// The catalog's query.
    ///
    /// - Throws: ``CatalogError`` for a value the catalog would refuse (named in its message).
    public func query() throws(CatalogError) -> SearchQuery {
        try SearchQuery(
            term: term, country: country, limit: limit, field: field, explicit: explicit, language: language, offset: offset)
    }

    /// The API's query parameters, in order (the filters only when set).
    var parameters: [(name: String, value: String)] {
        var items = [("term", term), ("limit", String(limit)), ("country", country)]
        if let field { items.append(("in", field.rawValue)) }
        if let explicit { items.append(("explicit", explicit ? "yes" : "no")) }
        if let language { items.append(("lang", language)) }
        if let offset { items.append(("offset", String(offset))) }
        return items
    }

    /// The request of the API's query parameters.
    ///
    /// - Throws: ``DownloadError`` `.badInput` naming a value that is not one.
    public init(parameter: (String) -> String?) throws(DownloadError) {
        func number(_ name: String, _ what: String) throws(DownloadError) -> Int? {
            guard let text = parameter(name) else { return nil }
            guard let value = Int(text) else { throw DownloadError(.badInput, "the \(name) must be \(what), not \"\(text)\"") }
            return value
        }
        let field = try parameter("in").map { text throws(DownloadError) in
            guard let field = SearchQuery.Field(rawValue: text) else {
                throw DownloadError(.badInput, "in must be song, artist or album, not \"\(text)\"")
            }
            return field
        }
        let explicit = try parameter("explicit").map { text throws(DownloadError) in
            guard text == "yes" || text == "no" else {
                throw DownloadError(.badInput, "explicit must be yes or no, not \"\(text)\"")
            }
            return text == "yes"
        }
        let (low, high) = (SearchQuery.limitRange.lowerBound, SearchQuery.limitRange.upperBound)
        self.init(
            term: parameter("term") ?? "", limit: try number("limit", "a number between \(low) and \(high)") ?? 50,
            country: parameter("country") ?? "US", field: field, explicit: explicit, language: parameter("lang"),
            offset: try number("offset", "a whole number"))
    }
}
