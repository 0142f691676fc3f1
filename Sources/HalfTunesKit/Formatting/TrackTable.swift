import ITunesSearch

/// Search results as a plain-text table: title, artist, album, duration, id.
public struct TrackTable: Sendable {
    /// The widest the table may be, in columns; `nil` for no limit (output that is not a terminal).
    public var maxWidth: Int?

    /// Creates a table renderer.
    public init(maxWidth: Int? = nil) {
        self.maxWidth = maxWidth
    }

    /// The table, one line per track after a header line, each ending in a newline.
    public func render(_ tracks: [Track]) -> String {
        let header = ["TITLE", "ARTIST", "ALBUM", "TIME", "ID"]
        var rows = tracks.map { track in
            [
                DisplayWidth.printable(track.name) + (track.isDownloadable ? "" : " (no preview)"),
                DisplayWidth.printable(track.artist),
                DisplayWidth.printable(track.album ?? "—"),
                track.formattedDuration ?? "—",
                String(track.id),
            ]
        }
        rows.insert(header, at: 0)
        var widths = (0..<header.count).map { column in rows.map { DisplayWidth.of($0[column]) }.max() ?? 0 }
        if let maxWidth { widths = fit(widths, into: maxWidth) }
        return rows.map { row in
            row.enumerated().map { column, cell -> String in
                let cut = DisplayWidth.truncate(cell, to: widths[column])
                // Right-align numbers, and do not pad the last column (no trailing spaces).
                if column == 3 { return String(repeating: " ", count: widths[column] - DisplayWidth.of(cut)) + cut }
                return column == row.count - 1 ? cut : DisplayWidth.pad(cut, to: widths[column])
            }
            .joined(separator: "  ")
        }
        .joined(separator: "\n") + "\n"
    }

    /// Shrinks the three text columns, widest first, until the table fits.
    private func fit(_ widths: [Int], into maxWidth: Int) -> [Int] {
        var widths = widths
        let gaps = 2 * (widths.count - 1)
        while widths.reduce(0, +) + gaps > maxWidth {
            let widest = (0..<3).max { widths[$0] < widths[$1] }!
            guard widths[widest] > 8 else { break }
            widths[widest] -= 1
        }
        return widths
    }
}
