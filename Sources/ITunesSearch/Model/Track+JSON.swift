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
            json.text += "\(seconds)"
        } else {
            json.field("releaseDate", nil as String?)
        }
        json.field("explicitness", explicitness?.rawValue)
        json.field("storeURL", storeURL?.absoluteString)
        json.field("trackNumber", trackNumber)
        json.field("trackCount", trackCount)
        json.key("downloadable")
        json.text += isDownloadable ? "true" : "false"
        json.text += "}"
        return json.text
    }
}

/// A JSON object being written, field by field.
private struct JSONText {
    var text = ""
    private var first = true

    mutating func open() {
        text.reserveCapacity(512)
        text += "{"
    }

    mutating func key(_ name: String) {
        if !first { text += "," }
        first = false
        text += "\"\(name)\":"
    }

    mutating func field(_ name: String, _ value: Int?) {
        key(name)
        text += value.map(String.init) ?? "null"
    }

    mutating func field(_ name: String, _ value: String?) {
        key(name)
        guard let value else {
            text += "null"
            return
        }
        text += "\""
        // Most values need no escape at all: one pass over their UTF-8 bytes says so, and they
        // are copied whole (walking unicode scalars one by one cost ~10 µs a track).
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            text += value
            text += "\""
            return
        }
        // Runs of characters that need no escape are copied whole.
        var run = value.unicodeScalars.startIndex
        for index in value.unicodeScalars.indices {
            let scalar = value.unicodeScalars[index]
            let escaped: String
            switch scalar {
            case "\"": escaped = "\\\""
            case "\\": escaped = "\\\\"
            case "\n": escaped = "\\n"
            case "\r": escaped = "\\r"
            case "\t": escaped = "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                escaped = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: continue
            }
            text.unicodeScalars.append(contentsOf: value.unicodeScalars[run..<index])
            text += escaped
            run = value.unicodeScalars.index(after: index)
        }
        text.unicodeScalars.append(contentsOf: value.unicodeScalars[run...])
        text += "\""
    }
}
