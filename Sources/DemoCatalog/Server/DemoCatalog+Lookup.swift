import Foundation
import Hummingbird

extension DemoCatalog {
    /// `GET /lookup?id=A,B,…[&entity=song|album][&limit=N][&sort=recent]`, as the real API
    /// answers it: a track id gives the track; an album id the album, and with `entity=song` its
    /// songs and music videos (in title order, not track order: the real API does not always keep
    /// it either); an artist id the artist, and with `entity=song` their songs (newest first with
    /// `sort=recent`, at most `limit`, 50 by default) or with `entity=album` their albums.
    func lookup(_ request: Request) -> Response {
        let query = FormQuery.parse(request.uri.query)
        let ids = (query["id"] ?? "").split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        recordLookup(ids)
        let entity = query["entity"]
        if let entity, !["song", "musicTrack", "album", "musicVideo"].contains(entity) {
            return badRequest("Invalid value(s) for key(s): [resultEntity]")
        }
        let limit = query["limit"].flatMap(Int.init).map { min(max($0, 1), 200) } ?? 50
        let newestFirst = query["sort"] == "recent"
        var rows: [APIRow] = []
        for id in ids {
            if let track = track(id: id) {
                rows.append(row(track))
            } else if case let songs = album(id: id), !songs.isEmpty {
                let videos = videos.filter { $0.collectionId == id }
                rows.append(.collection(APICollection(songs + videos, baseURL: base)))
                if entity == "song" || entity == "musicTrack" {
                    rows += (songs + videos).sorted { $0.name < $1.name }.map(row)
                }
            } else if case let songs = songs(ofArtist: id), let first = songs.first {
                rows.append(.artist(APIArtist(first, baseURL: base)))
                switch entity {
                case "song", "musicTrack":
                    let ordered = newestFirst ? songs.sorted { $0.releaseDate > $1.releaseDate } : songs
                    rows += ordered.prefix(limit).map(row)
                case "album":
                    var seen: Set<Int> = []
                    for song in songs where seen.insert(song.collectionId).inserted {
                        rows.append(.collection(APICollection(album(id: song.collectionId), baseURL: base)))
                    }
                default: break
                }
            }
        }
        return json(rows)
    }

    private func row(_ track: DemoTrack) -> APIRow {
        .track(APIResult(track, baseURL: base, country: "USA", generation: previewGeneration(of: track.id)))
    }
}
