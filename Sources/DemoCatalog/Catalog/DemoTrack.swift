import Foundation

/// One made-up song in the DemoCatalog.
public struct DemoTrack: Sendable, Hashable {
    /// The `trackId` it is served under.
    public let id: Int
    /// Title.
    public let name: String
    /// Artist.
    public let artist: String
    /// Album.
    public let album: String
    /// Genre.
    public let genre: String
    /// Whether the catalog offers a preview for it (one track has none, as in the real catalog).
    public let hasPreview: Bool
    /// Explicitness as the API spells it.
    public let explicitness: String
    /// Release date, ISO 8601.
    public let releaseDate: String
    /// Length of the "full" track, in milliseconds.
    public let durationMs: Int
    /// Track number on its album.
    public let trackNumber: Int
    /// How many tracks its disc has (as the API's `trackCount` counts them: per disc).
    public let trackCount: Int
    /// The disc it is on.
    public var discNumber = 1
    /// How many discs its album has.
    public var discCount = 1
    /// A music video, not a song (listed in its album's lookup only).
    public var isMusicVideo = false

    /// The `artistId` it is served under.
    public var artistId: Int { 900_000 + Self.stableHash(artist) % 100_000 }
    /// The `collectionId` of its album.
    public var collectionId: Int { 800_000 + Self.stableHash(artist + "\u{0}" + album) % 100_000 }

    /// Whether every word of `term` appears in the title, artist or album (ignoring case and
    /// accents), or in the one field `attribute` names (`songTerm`, `artistTerm`, `albumTerm`).
    func matches(words: [String], attribute: String? = nil) -> Bool {
        let haystack =
            switch attribute {
            case "songTerm": name
            case "artistTerm": artist
            case "albumTerm": album
            default: "\(name) \(artist) \(album)"
            }
        return words.allSatisfy { haystack.range(of: $0, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
    }

    /// FNV-1a: stable across runs and processes, unlike `hashValue`.
    static func stableHash(_ string: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in string.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return Int(hash % UInt64(Int32.max))
    }
}
