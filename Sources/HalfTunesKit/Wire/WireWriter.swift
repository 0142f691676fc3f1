import Foundation

/// Writes the wire documents that come in hundreds (listings, search results) straight to bytes:
/// the same JSON as ``WireEncoding`` makes with `JSONEncoder` (sorted keys, slashes as they are),
/// byte for byte (a test holds them to it), about twenty times faster, so a listing page costs
/// the server well under a millisecond.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    // MARK: - Documents (keys in sorted order, absent optionals left out, as JSONEncoder does)

    mutating func write(_ listing: Listing) {
        var first = true
        bytes.append(UInt8(ascii: "{"))
        if let cursor = listing.cursor {
            key("cursor", &first)
            string(cursor)
        }
        key("downloads", &first)
        array(listing.downloads) { $0.write($1) }
        key("library", &first)
        array(listing.library) { $0.write($1) }
        if let bytes = listing.libraryBytes {
            key("libraryBytes", &first)
            integer(bytes)
        }
        if let count = listing.libraryCount {
            key("libraryCount", &first)
            integer(Int64(count))
        }
        if let next = listing.next {
            key("next", &first)
            string(next)
        }
        if let removed = listing.removed {
            key("removed", &first)
            array(removed) { $0.integer(Int64($1)) }
        }
        key("v", &first)
        integer(Int64(listing.v))
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func write(_ results: SearchResults) {
        var first = true
        bytes.append(UInt8(ascii: "{"))
        key("results", &first)
        array(results.results) { $0.write($1) }
        key("v", &first)
        integer(Int64(results.v))
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func write(_ document: DownloadDocument) {
        var first = true
        bytes.append(UInt8(ascii: "{"))
        if let album = document.album {
            key("album", &first)
            string(album)
        }
        key("artist", &first)
        string(document.artist)
        if let url = document.artworkURL {
            key("artworkURL", &first)
            string(url.absoluteString)
        }
        key("downloadable", &first)
        boolean(document.downloadable)
        if let duration = document.durationMs {
            key("durationMs", &first)
            integer(Int64(duration))
        }
        if let expected = document.expectedBytes {
            key("expectedBytes", &first)
            integer(expected)
        }
        if let file = document.file {
            key("file", &first)
            string(file)
        }
        key("id", &first)
        integer(Int64(document.id))
        key("name", &first)
        string(document.name)
        if let url = document.previewURL {
            key("previewURL", &first)
            string(url.absoluteString)
        }
        if let reason = document.reason {
            key("reason", &first)
            string(reason)
        }
        key("receivedBytes", &first)
        integer(document.receivedBytes)
        key("state", &first)
        string(document.state.rawValue)
        key("v", &first)
        integer(Int64(document.v))
        bytes.append(UInt8(ascii: "}"))
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

    mutating func boolean(_ value: Bool) { bytes.append(contentsOf: (value ? "true" : "false").utf8) }

    /// A JSON string: quotes, backslashes and control characters escaped the way JSONEncoder does.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(contentsOf: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A key of an object, after a comma unless it is the first.
    mutating func key(_ name: StaticString, _ first: inout Bool) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }
}
