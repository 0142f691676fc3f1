import ITunesSearch

extension LocalDownloadControl {
    /// An album by its id, or by a track's (the album the track is on: what a search's table
    /// shows; the catalog's ids of tracks, albums and artists never collide).
    public func album(_ collectionID: Int) async throws(DownloadError) -> SearchResults {
        try await DownloadError.catching {
            let catalog = try await openCatalog()
            var found = try await catalog.lookup(collection: collectionID)
            if found == nil, let album = try await catalog.lookup(id: collectionID)?.collectionId {
                found = try await catalog.lookup(collection: album)
            }
            guard let listing = found else {
                throw DownloadError(.notFound, "the catalog has no album \(collectionID) (nor a track of that id)")
            }
            return SearchResults(results: try await documents(of: listing.tracks), album: AlbumDocument(listing.album))
        }
    }

    /// An artist by their id, or by a track's (its artist).
    public func artist(_ artistID: Int, limit: Int) async throws(DownloadError) -> SearchResults {
        try await DownloadError.catching {
            let catalog = try await openCatalog()
            var found = try await catalog.lookup(artist: artistID, limit: limit)
            if found == nil, let artist = try await catalog.lookup(id: artistID)?.artistId {
                found = try await catalog.lookup(artist: artist, limit: limit)
            }
            guard let listing = found else {
                throw DownloadError(.notFound, "the catalog has no artist \(artistID) (nor a track of that id)")
            }
            return SearchResults(results: try await documents(of: listing.tracks), artist: ArtistDocument(listing.artist))
        }
    }

    /// The documents of tracks the catalog answered with, each with its download state; the
    /// tracks are remembered, so that starting their downloads needs no lookup.
    func documents(of found: [Track]) async throws -> [DownloadDocument] {
        tracks.remember(found)
        let statuses = try await statuses(of: found.map(\.id))
        return found.map { DownloadDocument($0, status: statuses[$0.id]) }
    }
}
