/// Text as a terminal shows it: how many columns it takes, cut to fit, and made safe to print.
public enum DisplayWidth {
    /// Columns `text` takes in a terminal: East Asian wide characters and emoji take two.
    public static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    /// `text` cut to at most `columns` columns, ending in `…` when it was cut.
    public static func truncate(_ text: String, to columns: Int) -> String {
        guard of(text) > columns else { return text }
        guard columns > 0 else { return "" }
        var out = ""
        var used = 0
        for character in text {
            let w = width(of: character)
            if used + w > columns - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }

    /// `path` in at most `columns` columns when it can be: whole, else with its leading folders
    /// given way to `…` one by one, down to `…/` and the file's name (which may still be wider).
    public static func fittingPath(_ path: String, in columns: Int) -> String {
        guard of(path) > columns else { return path }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        for kept in stride(from: parts.count - 1, through: 1, by: -1) {
            let shortened = "…/" + parts.suffix(kept).joined(separator: "/")
            if of(shortened) <= columns { return shortened }
        }
        return "…/" + (parts.last.map(String.init) ?? path)
    }

    /// `text` padded with spaces to `columns` columns.
    public static func pad(_ text: String, to columns: Int) -> String {
        text + String(repeating: " ", count: max(0, columns - of(text)))
    }

    /// `text` with control characters (including escape sequences a hostile catalog might send)
    /// replaced by spaces, so printing it cannot drive the terminal.
    public static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    let category = scalar.properties.generalCategory
                    // Bidirectional overrides could make a line read differently than it is.
                    let isOverride = (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
                    return category == .control || isOverride ? " " : scalar
                }))
    }

    static func width(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation })
            || character.unicodeScalars.contains(where: { $0.value == 0xFE0F })
        {
            return 2
        }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return 2
        default:
            return first.properties.generalCategory == .nonspacingMark ? 0 : 1
        }
    }
}
