import Foundation
import ITunesSearch

/// Names for files in the library: `Artist - Title [id].ext`, safe on any filesystem and unable
/// to escape the library folder whatever the catalog sends.
public enum LibraryNaming {
    /// The longest file name, in bytes (most filesystems allow 255).
    public static let maxBytes = 200

    /// The file name for a track's preview.
    public static func fileName(for track: Track, fileExtension: String) -> String {
        let suffix = " [\(track.id)].\(sanitizeExtension(fileExtension))"
        var stem = clean("\(track.artist) - \(track.name)")
        let budget = maxBytes - suffix.utf8.count
        while stem.utf8.count > budget { stem.removeLast() }
        if stem.first?.isWhitespace == true || stem.last?.isWhitespace == true {
            stem = stem.trimmingCharacters(in: .whitespaces)
        }
        if stem.isEmpty { stem = "Track" }
        return stem + suffix
    }

    /// The extension for a preview: from the URL's path when it names an audio type, else from
    /// the server's Content-Type, else `m4a` (what the iTunes catalog serves).
    public static func fileExtension(previewURL: URL?, contentType: String? = nil) -> String {
        let fromPath =
            (previewURL.map { plainExtension(ofPath: $0.path(percentEncoded: true)) ?? $0.pathExtension } ?? "").lowercased()
        if knownExtensions.contains(fromPath) { return fromPath }
        if let contentType {
            let mediaType =
                contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            if let mapped = extensionsByMediaType[mediaType] { return mapped }
        }
        return "m4a"
    }

    /// What `URL.pathExtension` gives for a path whose last component is a plain `name.ext` (not
    /// starting with a dot, the extension ASCII letters and digits, nothing percent-encoded), read
    /// off the text; `nil` for any other shape, which the caller leaves to `URL` (on Linux a URL's
    /// extension costs thousands of instructions: its path is decoded on each read).
    static func plainExtension(ofPath path: String) -> String? {
        let utf8 = path.utf8
        let name = utf8.lastIndex(of: UInt8(ascii: "/")).map { utf8[utf8.index(after: $0)...] } ?? utf8[...]
        guard name.first != UInt8(ascii: "."), let dot = name.lastIndex(of: UInt8(ascii: ".")),
            !name.contains(UInt8(ascii: "%"))
        else { return nil }
        let ext = name[name.index(after: dot)...]
        guard !ext.isEmpty, ext.allSatisfy(isLetterOrDigit) else { return nil }
        return String(decoding: ext, as: UTF8.self)
    }

    /// Whether a byte is an ASCII letter or digit.
    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        let lower = byte | 0x20
        return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(lower) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// The last component of a file path, as `URL(filePath:).lastPathComponent` gives it for a
    /// path that does not end in `/`.
    static func fileName(ofPath path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// The track id in a library file name, if it has one.
    public static func trackID(inFileName name: String) -> Int? {
        guard let close = name.range(of: "].", options: .backwards),
            let open = name.range(of: " [", options: .backwards, range: name.startIndex..<close.lowerBound)
        else { return nil }
        return Int(name[open.upperBound..<close.lowerBound])
    }

    /// The track ids that the files in `folder` are named after, downloaded or partial (`.part`);
    /// empty when the folder cannot be read.
    public static func trackIDs(inFolder folder: URL) -> Set<Int> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return Set(names.compactMap(trackID(inFileName:)))
    }

    private static let knownExtensions: Set<String> = ["m4a", "mp3", "wav", "aac", "mp4", "ogg", "flac", "m4p"]
    private static let extensionsByMediaType = [
        "audio/mp4": "m4a", "audio/x-m4a": "m4a", "audio/m4a": "m4a", "audio/mpeg": "mp3", "audio/mp3": "mp3",
        "audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/aac": "aac", "audio/ogg": "ogg",
        "audio/flac": "flac",
    ]

    private static func sanitizeExtension(_ ext: String) -> String {
        let cleaned = ext.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return cleaned.isEmpty ? "m4a" : String(cleaned.prefix(5))
    }

    /// Replaces what cannot or should not be in a file name: `/`, NUL and other control
    /// characters, bidirectional overrides (they disguise extensions); drops leading dots.
    static func clean(_ text: String) -> String { isClean(text) ? text : cleanFully(text) }

    /// ``clean(_:)``, character by character.
    static func cleanFully(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x2F, 0x5C: scalars.append("_")  // / and \
            case 0x00...0x1F, 0x7F...0x9F: scalars.append(" ")
            case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: continue
            default: scalars.append(scalar)
            }
        }
        var result = String(scalars).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        // ".." never appears in a name (file servers refuse such paths); "..." reads as "…" anyway.
        while let dots = result.range(of: "..") {
            let end = result[dots.upperBound...].prefix { $0 == "." }.endIndex
            result.replaceSubrange(dots.lowerBound..<end, with: "…")
        }
        while result.hasPrefix(".") || result.hasPrefix(" ") || result.hasPrefix("…") { result.removeFirst() }
        return result
    }

    /// Whether ``cleanFully(_:)`` would leave `text` as it is, known from one pass over its
    /// bytes: printable ASCII with no slash or backslash, single spaces between words, no `..`,
    /// not starting with a dot. (Most names are; the others take the full pass.)
    static func isClean(_ text: String) -> Bool {
        guard text.utf8.first != 0x2E else { return false }
        var previous: UInt8 = 0x20  // as if after a space: a leading space is not clean
        for byte in text.utf8 {
            switch byte {
            case 0x2F, 0x5C: return false
            case 0x20 where previous == 0x20, 0x2E where previous == 0x2E: return false
            case 0x20...0x7E: break
            default: return false
            }
            previous = byte
        }
        return previous != 0x20
    }
}
