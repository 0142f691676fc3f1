import Foundation
import MediaTags

/// The library as an extended M3U8 playlist for other players, and the track ids a playlist (or
/// a list of ids or store links) names. Pure but for reading files' durations.
public enum Playlist {
    /// `#EXTM3U`, then `#EXTINF:<seconds>,<artist> - <title>` and the file's path for each track
    /// with a file: relative to `folder` when given (the playlist's own), else absolute. Seconds
    /// are the file's own (a preview's, not the song's), `-1` when the file does not say.
    public static func m3u8(_ documents: [DownloadDocument], relativeTo folder: URL? = nil) -> String {
        var out = "#EXTM3U\n"
        for document in documents {
            guard let file = document.file else { continue }
            let seconds = MediaDuration.seconds(ofFileAt: file).map { Int($0.rounded()) } ?? -1
            let title = [document.artist, document.name].filter { !$0.isEmpty }.joined(separator: " - ")
            out += "#EXTINF:\(seconds),\(DisplayWidth.printable(title))\n"
            out += (folder.map { relativePath(file, from: $0.standardizedFileURL.path) } ?? file) + "\n"
        }
        return out
    }

    /// `path` as seen from the folder `base` (`../` where it climbs).
    static func relativePath(_ path: String, from base: String) -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let from = URL(fileURLWithPath: base).standardizedFileURL.pathComponents
        var common = 0
        while common < min(target.count, from.count), target[common] == from[common] { common += 1 }
        let up = Array(repeating: "..", count: from.count - common)
        return (up + target[common...]).joined(separator: "/")
    }

    /// One line of a playlist or a list of tracks: what it names.
    public enum Entry: Sendable, Hashable {
        /// A track by id: a number, a store link (`…?i=ID`), or a file named as HalfTunes names them (`… [ID].m4a`).
        case track(Int)
        /// A comment, a directive or a blank line.
        case nothing
        /// Something else: the line, for the message.
        case bad(String)
    }

    /// What `line` names.
    public static func entry(_ line: String) -> Entry {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty || text.hasPrefix("#") { return .nothing }
        if let id = Int(text), id > 0 { return .track(id) }
        if let url = URL(string: text), let host = url.host, host.hasSuffix("apple.com"),
            let id = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "i" })?.value
                .flatMap(Int.init), id > 0
        {
            return .track(id)
        }
        let name = (text as NSString).lastPathComponent
        if let id = LibraryNaming.trackID(inFileName: name) { return .track(id) }
        return .bad(text)
    }
}
