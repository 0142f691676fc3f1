/// The tags HalfTunes writes into a music file. A `nil` field leaves what the file has.
public struct TrackTags: Sendable, Hashable {
    /// The title (MP4 `©nam`, WAV `INAM`, ID3 `TIT2`).
    public var title: String?
    /// The artist (`©ART`, `IART`, `TPE1`).
    public var artist: String?
    /// The album (`©alb`, `IPRD`, `TALB`).
    public var album: String?
    /// The genre, as text (`©gen`, `IGNR`, `TCON`).
    public var genre: String?
    /// The release date or year, such as `2019` or `2019-05-10` (`©day`, `ICRD`, `TDRC`).
    public var date: String?
    /// The track's number on its album and the album's count of tracks, where known (`trkn`, `TRCK`).
    public var trackNumber: TrackNumber?
    /// The cover (`covr`, ID3 `APIC`).
    public var cover: Artwork?

    /// Creates tags from their parts.
    public init(
        title: String? = nil, artist: String? = nil, album: String? = nil, genre: String? = nil, date: String? = nil,
        trackNumber: TrackNumber? = nil, cover: Artwork? = nil
    ) {
        self.title = title
        self.artist = artist
        self.album = album
        self.genre = genre
        self.date = date
        self.trackNumber = trackNumber
        self.cover = cover
    }
}

/// A track's place on its album.
public struct TrackNumber: Sendable, Hashable {
    /// The track's number (1-based).
    public var number: Int
    /// How many tracks the album has, when known.
    public var count: Int?

    /// Creates a track number.
    public init(_ number: Int, of count: Int? = nil) {
        self.number = number
        self.count = count
    }
}

/// A cover image, JPEG or PNG, recognised by its first bytes (never by a name or a server's word).
public struct Artwork: Sendable, Hashable {
    /// The image formats a music file's cover may have.
    public enum Kind: String, Sendable, Hashable {
        /// JPEG (`FF D8 FF`).
        case jpeg
        /// PNG (`89 'PNG' 0D 0A 1A 0A`).
        case png

        /// The image's media type.
        public var mediaType: String { self == .jpeg ? "image/jpeg" : "image/png" }
    }

    /// The image's bytes.
    public let bytes: [UInt8]
    /// Its format.
    public let kind: Kind

    /// The image in `bytes`, or `nil` when they are neither JPEG nor PNG.
    public init?(bytes: [UInt8]) {
        guard let kind = Self.kind(of: bytes) else { return nil }
        self.bytes = bytes
        self.kind = kind
    }

    /// The format of an image by its first bytes, `nil` when neither JPEG nor PNG.
    public static func kind(of bytes: some Collection<UInt8>) -> Kind? {
        let head = Array(bytes.prefix(8))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        return nil
    }
}
