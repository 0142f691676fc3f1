import Foundation

/// Writes the wire documents that come in hundreds (listings, search results) straight to bytes:
/// the same JSON as ``WireEncoding`` makes with `JSONEncoder` (sorted keys, slashes as they are),
/// byte for byte (a test holds them to it), without its generic machinery.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    // MARK: - Documents (keys in sorted order, absent optionals left out, as JSONEncoder does)

    mutating func write(_ listing: Listing) {
        var first = true
        bytes.append(UInt8(ascii: "{"))
        field("cursor", listing.cursor, &first)
        key("downloads", &first)
        array(listing.downloads) { $0.write($1) }
        key("library", &first)
        array(listing.library) { $0.write($1) }
        field("libraryBytes", listing.libraryBytes, &first)
        field("libraryCount", listing.libraryCount.map(Int64.init), &first)
        field("next", listing.next, &first)
        if let removed = listing.removed {
            key("removed", &first)
            array(removed) { $0.integer(Int64($1)) }
        }
        field("v", Int64(listing.v), &first)
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func write(_ results: SearchResults) {
        var first = true
        bytes.append(UInt8(ascii: "{"))
        key("results", &first)
        array(results.results) { $0.write($1) }
        field("v", Int64(results.v), &first)
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func write(_ document: DownloadDocument) {
        var first = true
        bytes.append(UInt8(ascii: "{"))
        field("album", document.album, &first)
        field("artist", document.artist, &first)
        field("artistId", document.artistId.map(Int64.init), &first)
        field("artworkURL", document.artworkURL?.absoluteString, &first)
        field("collectionId", document.collectionId.map(Int64.init), &first)
        field("discNumber", document.discNumber.map(Int64.init), &first)
        key("downloadable", &first)
        bytes.append(contentsOf: (document.downloadable ? "true" : "false").utf8)
        field("durationMs", document.durationMs.map(Int64.init), &first)
        field("expectedBytes", document.expectedBytes, &first)
        field("file", document.file, &first)
        field("id", Int64(document.id), &first)
        field("name", document.name, &first)
        field("previewURL", document.previewURL?.absoluteString, &first)
        field("reason", document.reason, &first)
        field("receivedBytes", document.receivedBytes, &first)
        field("state", document.state.rawValue, &first)
        field("storeURL", document.storeURL?.absoluteString, &first)
        field("trackNumber", document.trackNumber.map(Int64.init), &first)
        field("v", Int64(document.v), &first)
        field("warning", document.warning, &first)
        bytes.append(UInt8(ascii: "}"))
    }

    /// A string member of an object, left out when absent.
    mutating func field(_ name: StaticString, _ value: String?, _ first: inout Bool) {
        guard let value else { return }
        key(name, &first)
        string(value)
    }

    /// A number member of an object, left out when absent.
    mutating func field(_ name: StaticString, _ value: Int64?, _ first: inout Bool) {
        guard let value else { return }
        key(name, &first)
        integer(value)
    }

    // MARK: - Values

    mutating func array<T>(_ values: [T], _ element: (inout WireWriter, T) -> Void) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            element(&self, value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func integer(_ value: Int64) { bytes.append(contentsOf: String(value).utf8) }

    /// A JSON string: quotes, backslashes and control characters escaped the way JSONEncoder does.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): escape(byte)
            case 0x08: escape(UInt8(ascii: "b"))
            case 0x0C: escape(UInt8(ascii: "f"))
            case 0x0A: escape(UInt8(ascii: "n"))
            case 0x0D: escape(UInt8(ascii: "r"))
            case 0x09: escape(UInt8(ascii: "t"))
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(contentsOf: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ letter: UInt8) { bytes.append(contentsOf: [UInt8(ascii: "\\"), letter]) }

    /// A key of an object, after a comma unless it is the first.
    mutating func key(_ name: StaticString, _ first: inout Bool) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }
}
