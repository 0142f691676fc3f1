import HalfTunesKit

extension AlbumDocument {
    /// One line above its songs: "Signal Path (Deluxe) — Static Orchard (2025), album 812345: 5 songs",
    /// saying so when the store offers fewer of the album's tracks than it has.
    public func heading(songs: Int) -> String {
        let offered =
            trackCount.map { $0 > songs ? "\(songs) of its \($0) tracks offered" : nil } ?? nil
        return "\(name) — \(artist)\(year.map { " (\($0))" } ?? ""), album \(id): "
            + (offered ?? "\(songs) song\(songs == 1 ? "" : "s")")
    }
}

extension ArtistDocument {
    /// One line above their songs: "Static Orchard (Electronic), artist 912345: 12 songs, newest first".
    public func heading(songs: Int) -> String {
        "\(name)\(genre.map { " (\($0))" } ?? ""), artist \(id): \(songs) song\(songs == 1 ? "" : "s"), newest first"
    }
}
