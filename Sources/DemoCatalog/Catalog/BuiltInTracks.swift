/// The DemoCatalog's songs: a few made-up artists and albums, some names in Japanese and with emoji,
/// and one track without a preview.
enum BuiltInTracks {
    private struct Album {
        let artist: String
        let title: String
        let genre: String
        let year: Int
        let songs: [String]
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
    ]

    /// Tracks in catalog order, with ids from 1001 up.
    static let all: [DemoTrack] = {
        var tracks: [DemoTrack] = []
        var id = 1001
        for album in albums {
            for (index, song) in album.songs.enumerated() {
                let month = (index % 12) + 1
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
                        trackNumber: index + 1,
                        trackCount: album.songs.count
                    ))
                id += 1
            }
        }
        return tracks
    }()
}
