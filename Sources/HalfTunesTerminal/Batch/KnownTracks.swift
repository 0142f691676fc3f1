import HalfTunesKit

/// Starting ids of which the catalog may lack some, as curl and aria2 go on with the rest of a
/// list: the ids a ``DownloadError/unknownTracks(_:)`` names are left out and the rest started.
public enum KnownTracks {
    /// Calls `start` with `ids`, again without the ids each `.notFound` error names, until it
    /// starts the rest (or none are left).
    ///
    /// - Returns: What `start` started, and the ids left out, in the order met.
    /// - Throws: Any other error of `start`, and a `.notFound` that names none of `ids`.
    public static func start(
        _ ids: [Int], with start: ([Int]) async throws -> [DownloadDocument]
    ) async throws -> (started: [DownloadDocument], unknown: [Int]) {
        var ids = ids
        var unknown: [Int] = []
        while !ids.isEmpty {
            do { return (try await start(ids), unknown) } catch let error as DownloadError where error.code == .notFound {
                let missing = Set(error.trackIDs)
                let rest = ids.filter { !missing.contains($0) }
                guard rest.count < ids.count else { throw error }  // not about these ids
                unknown += ids.filter(missing.contains)
                ids = rest
            }
        }
        return ([], unknown)
    }
}
