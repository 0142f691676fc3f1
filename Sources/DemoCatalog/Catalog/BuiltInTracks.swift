/// The DemoCatalog's songs: a few made-up artists and albums (some artists with two, one album on
/// two discs with a music video among its tracks), some names in Japanese and with emoji, and one
/// track without a preview.
enum BuiltInTracks {
    private struct Album {
        let artist: String
        let title: String
        let genre: String
        let year: Int
        let songs: [String]
        /// Where disc 2 starts in `songs` (`nil`: one disc).
        var secondDisc: Int? = nil
        /// A music video at the end of the last disc, as the store lists them among an album's tracks.
        var video: String? = nil
    }

    private static let albums: [Album] = [
        Album(
            artist: "The Paper Lanterns", title: "Harbour Lights", genre: "Indie Pop", year: 2019,
            songs: [
                "Love in the Harbour", "Paper Boats", "Tidewater", "Salt & Vinegar", "Lighthouse Keeper",
                "Coming Home",
            ]),
        Album(
            artist: "The Paper Lanterns", title: "Night Ferry", genre: "Indie Pop", year: 2022,
            songs: ["Night Ferry", "Love Letters (Unsent)", "Fog Horn", "Deck Chairs"]),
        Album(
            artist: "Mina Okafor", title: "Copper Skies", genre: "Soul", year: 2021,
            songs: [
                "Copper Skies", "Slow Burn", "Loving You Loud", "Satellite Heart", "Sunday #2",
                "100% Yours",
            ]),
        Album(
            artist: "さくらバンド", title: "夜明けのカフェ", genre: "J-Pop", year: 2020,
            songs: ["夜明けのカフェ", "桜の雨", "ラブソング", "東京ミッドナイト", "Kōhī to Ame"]),
        Album(
            artist: "Disco Llama 🦙", title: "Glitter Pasture", genre: "Dance", year: 2023,
            songs: ["Party Time 🎉", "Love Potion 💖", "Hoof It", "Mirror Ball Moon", "Neon Alpaca"]),
        Album(
            artist: "Los Hermanos Álvarez", title: "Canciones del Río", genre: "Latin", year: 2018,
            songs: ["Corazón de Río", "Amor Eterno", "La Última Noche", "Bésame Otra Vez"]),
        Album(
            artist: "Static Orchard", title: "Low Fidelity", genre: "Electronic", year: 2024,
            songs: [
                "Price Tag", "Tape Hiss", "Modem Love", "Cathode", "Buffering…", "Q&A",
                "Key=Value",
            ]),
        Album(
            artist: "Greta Sundqvist", title: "Winter Songs", genre: "Folk", year: 2017,
            songs: ["First Snow", "Love Is a Long Winter", "Kindling"]),
        Album(
            artist: "Static Orchard", title: "Signal Path (Deluxe)", genre: "Electronic", year: 2025,
            songs: ["Carrier Wave", "Handshake", "Dial Tone", "Packet Loss", "Echo Request"], secondDisc: 3,
            video: "Handshake (Video)"),
    ]

    /// Music videos, in album order, with ids from 5001 up: listed in their album's lookup, never
    /// found by a song search, never offered as previews.
    static let videos: [DemoTrack] = {
        var videos: [DemoTrack] = []
        for album in albums {
            guard let video = album.video else { continue }
            let disc = album.secondDisc.map { album.songs.count - $0 } ?? album.songs.count
            videos.append(
                DemoTrack(
                    id: 5001 + videos.count, name: video, artist: album.artist, album: album.title, genre: album.genre,
                    hasPreview: true, explicitness: "notExplicit", releaseDate: "\(album.year)-01-01T12:00:00Z",
                    durationMs: 240_000, trackNumber: disc + 1, trackCount: album.songs.count + 1,
                    discNumber: album.secondDisc == nil ? 1 : 2, discCount: album.secondDisc == nil ? 1 : 2,
                    isMusicVideo: true))
        }
        return videos
    }()

    /// Tracks in catalog order, with ids from 1001 up.
    static let all: [DemoTrack] = {
        var tracks: [DemoTrack] = []
        var id = 1001
        for album in albums {
            for (index, song) in album.songs.enumerated() {
                let month = (index % 12) + 1
                let onSecond = album.secondDisc.map { index >= $0 } ?? false
                let discStart = onSecond ? album.secondDisc ?? 0 : 0
                let discLength =
                    album.secondDisc.map { onSecond ? album.songs.count - $0 : $0 } ?? album.songs.count
                tracks.append(
                    DemoTrack(
                        id: id,
                        name: song,
                        artist: album.artist,
                        album: album.title,
                        genre: album.genre,
                        hasPreview: song != "Deck Chairs",
                        explicitness: song == "Slow Burn" ? "explicit" : "notExplicit",
                        releaseDate: "\(album.year)-\(month < 10 ? "0" : "")\(month)-01T12:00:00Z",
                        durationMs: 150_000 + (DemoTrack.stableHash(song) % 120_000),
                        trackNumber: index - discStart + 1,
                        trackCount: discLength,
                        discNumber: onSecond ? 2 : 1,
                        discCount: album.secondDisc == nil ? 1 : 2
                    ))
                id += 1
            }
        }
        return tracks
    }()
}
