import ITunesSearch

/// A catalog lookup begun before it is asked for: the agent a `download` starts looks the
/// batch's first ids up while it opens its home, and starting those downloads takes what it
/// found instead of asking the catalog again, its failure included (the catalog client has
/// retried what could be retried).
public final class LookAhead: Sendable {
    /// The ids looked up.
    public let ids: Set<Int>
    private let answer: Task<[Track], any Error>

    /// Begins looking `ids` up in `catalog`.
    public init(ids: [Int], catalog: ITunesCatalog) {
        self.ids = Set(ids)
        answer = Task { try await catalog.lookup(ids: ids) }
    }

    /// The tracks found, once the answer came.
    ///
    /// - Throws: The lookup's ``CatalogError``.
    public var tracks: [Track] {
        get async throws { try await answer.value }
    }
}
