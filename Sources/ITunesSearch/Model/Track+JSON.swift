import Foundation

extension Track {
    /// The track as JSON, written directly: the same document `JSONEncoder` makes of it (the
    /// same keys and values; URLs as their absolute strings, the release date as seconds since
    /// 2001, nulls for what is missing), without its generic machinery, which costs tens of
    /// microseconds a track on Linux — felt when a batch of thousands starts.
    public var jsonText: String {
        var json = JSONText()
        json.open()
        json.field("id", id)
        json.field("name", name)
        json.field("artist", artist)
        json.field("album", album)
        json.field("artworkURL", artworkURL?.absoluteString)
        json.field("durationMs", durationMs)
        json.field("previewURL", previewURL?.absoluteString)
        json.field("genre", genre)
        if let seconds = releaseDate?.timeIntervalSinceReferenceDate, seconds.isFinite {
            json.key("releaseDate")
            json.raw("\(seconds)")
        } else {
            json.field("releaseDate", nil as String?)
        }
        json.field("explicitness", explicitness?.rawValue)
        json.field("storeURL", storeURL?.absoluteString)
        json.field("trackNumber", trackNumber)
        json.field("trackCount", trackCount)
        json.key("downloadable")
        json.raw(isDownloadable ? "true" : "false")
        json.raw("}")
        return json.text
    }
}

/// A JSON object being written, field by field, as UTF-8 bytes (appending to a `String` costs a
/// few hundred instructions a piece; a track has some seventy pieces).
private struct JSONText {
    private var bytes: [UInt8] = []
    private var first = true

    /// The document written so far.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func open() {
        bytes.reserveCapacity(768)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Appends text as it is.
    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    mutating func key(_ name: String) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: name.utf8)
        bytes.append(contentsOf: "\":".utf8)
    }

    mutating func field(_ name: String, _ value: Int?) {
        key(name)
        raw(value.map(String.init) ?? "null")
    }

    mutating func field(_ name: String, _ value: String?) {
        key(name)
        guard let value else {
            raw("null")
            return
        }
        bytes.append(UInt8(ascii: "\""))
        // Bytes that need no escape are copied as they are: every byte of a multi-byte character
        // is 0x80 or more, so only ASCII quotes, backslashes and control characters are escaped.
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: "\\\\".utf8)
            case UInt8(ascii: "\n"): bytes.append(contentsOf: "\\n".utf8)
            case UInt8(ascii: "\r"): bytes.append(contentsOf: "\\r".utf8)
            case UInt8(ascii: "\t"): bytes.append(contentsOf: "\\t".utf8)
            case ..<0x20:
                let hex = String(byte, radix: 16)
                bytes.append(contentsOf: "\\u".utf8)
                bytes.append(contentsOf: String(repeating: "0", count: 4 - hex.count).utf8)
                bytes.append(contentsOf: hex.utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
