import Foundation
import NetworkBasics

/// A field of a catalog result that HalfTunes reads (the rest are skipped).
enum ResultField: Int, CaseIterable {
    case wrapperType, kind, trackId, trackName, trackCensoredName, artistName, collectionName
    case artworkUrl100, artworkUrl60, artworkUrl30, trackTimeMillis, previewUrl
    case primaryGenreName, releaseDate, trackExplicitness, trackViewUrl, trackNumber, trackCount

    /// Whether the field is a number (the others are strings).
    var isNumber: Bool {
        switch self {
        case .trackId, .trackTimeMillis, .trackNumber, .trackCount: true
        default: false
        }
    }

    /// The fields by the length of their keys (as bytes): a key is compared only with the few
    /// of its length.
    private static let byLength: [[(field: ResultField, key: [UInt8])]] = {
        var table = [[(field: ResultField, key: [UInt8])]](repeating: [], count: 32)
        for field in allCases {
            let key = Array("\(field)".utf8)
            table[key.count].append((field, key))
        }
        return table
    }()

    /// The field a key names, `nil` for any other key; a key that cannot be read (a bad escape
    /// or byte) is no field and makes its object not `readable`.
    init?(_ json: CatalogJSON, rawKey: Range<Int>, readable: inout Bool) {
        let raw = json.raw(rawKey)
        if !raw.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\\") && $0 < 0x80 }) {
            // Escaped, or not ASCII: compared once decoded (a key that cannot be is no field).
            guard let text = json.text(rawKey) else {
                readable = false
                return nil
            }
            guard let field = Array(text.utf8).withUnsafeBytes(Self.field(named:)) else { return nil }
            self = field
        } else {
            guard let field = Self.field(named: raw) else { return nil }
            self = field
        }
    }

    /// The field with this key, compared byte by byte (no copy of the key).
    private static func field(named raw: UnsafeRawBufferPointer) -> ResultField? {
        guard raw.count < byLength.count, let start = raw.baseAddress else { return nil }
        for (field, key) in byLength[raw.count] where key.withUnsafeBytes({ memcmp($0.baseAddress!, start, raw.count) }) == 0 {
            return field
        }
        return nil
    }
}

/// The fields of one catalog result as read (their raw text in the body), turned into a track
/// the way the catalog is read everywhere: leniently, a bad field costing only that field.
struct ResultFields {
    private var ranges = [Range<Int>?](repeating: nil, count: ResultField.allCases.count)
    private var seen: UInt32 = 0

    /// Whether the field was met already (the first of two same keys counts).
    func has(_ field: ResultField) -> Bool { seen & 1 << field.rawValue != 0 }

    /// Records a field's raw value; `nil` for one of the wrong type or `null`.
    mutating func set(_ field: ResultField, _ range: Range<Int>?) {
        seen |= 1 << field.rawValue
        ranges[field.rawValue] = range
    }

    /// The song these fields describe; `nil` for artists, albums, videos and results without an id.
    func track(_ json: CatalogJSON) -> Track? {
        func string(_ field: ResultField) -> String? {
            guard let range = ranges[field.rawValue], let value = json.text(range), !value.isEmpty else { return nil }
            return value
        }
        func integer(_ field: ResultField) -> Int? { ranges[field.rawValue].flatMap(json.integer) }
        // Lookup can answer with artists and albums, Search with music videos: only songs count.
        if let wrapperType = string(.wrapperType), wrapperType != "track" { return nil }
        if let kind = string(.kind), kind != "song" { return nil }
        guard let id = integer(.trackId), id > 0 else { return nil }
        // URLs only http(s) with a host: a catalog must never make HalfTunes open a file or an odd scheme.
        return Track(
            id: id,
            name: string(.trackName) ?? string(.trackCensoredName) ?? "Untitled",
            artist: string(.artistName) ?? "Unknown Artist",
            album: string(.collectionName),
            artworkURL: (string(.artworkUrl100) ?? string(.artworkUrl60) ?? string(.artworkUrl30)).flatMap(URLPolicy.webURL),
            durationMs: integer(.trackTimeMillis),
            previewURL: string(.previewUrl).flatMap(URLPolicy.webURL),
            genre: string(.primaryGenreName),
            releaseDate: string(.releaseDate).flatMap(Self.parseDate),
            explicitness: string(.trackExplicitness).flatMap(Explicitness.init(rawValue:)),
            storeURL: string(.trackViewUrl).flatMap(URLPolicy.webURL),
            trackNumber: Self.positive(integer(.trackNumber)),
            trackCount: Self.positive(integer(.trackCount)))
    }

    /// A number that means something only when positive (a track number, a count).
    static func positive(_ value: Int?) -> Int? { value.flatMap { $0 > 0 ? $0 : nil } }

    static func parseDate(_ string: String) -> Date? {
        try? Date(string, strategy: .iso8601)
    }
}
