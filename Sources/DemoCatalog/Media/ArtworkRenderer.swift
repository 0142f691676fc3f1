/// Draws a track's cover art: an SVG square in a colour of its own with the album's initials.
enum ArtworkRenderer {
    static func svg(for track: DemoTrack, size: Int) -> String {
        let hue = DemoTrack.stableHash(track.album) % 360
        let initials = track.album.split(separator: " ").prefix(2).compactMap(\.first).map(String.init).joined()
        let label = escapeXML(initials.isEmpty ? "♪" : initials)
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(size)" height="\(size)" viewBox="0 0 100 100">\
            <rect width="100" height="100" fill="hsl(\(hue),55%,45%)"/>\
            <circle cx="50" cy="50" r="34" fill="hsl(\((hue + 40) % 360),60%,60%)"/>\
            <text x="50" y="60" font-family="sans-serif" font-size="28" text-anchor="middle" fill="#fff">\(label)</text>\
            </svg>
            """
    }

    static func escapeXML(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
