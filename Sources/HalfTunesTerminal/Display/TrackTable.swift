import HalfTunesKit
import ITunesSearch

/// A plain-text table aligned by display width (so CJK and emoji titles line up), fitted to a
/// terminal by cutting its text columns, widest first, with `…`.
public struct TextTable: Sendable {
    /// A column: its heading, whether it is right-aligned (numbers), whether it may be cut.
    public struct Column: Sendable {
        public var title: String
        public var alignsRight: Bool
        public var shrinks: Bool

        /// A column.
        public init(_ title: String, alignsRight: Bool = false, shrinks: Bool = false) {
            (self.title, self.alignsRight, self.shrinks) = (title, alignsRight, shrinks)
        }
    }

    /// The widest the table may be, in columns; `nil` for no limit (output that is not a terminal).
    public var maxWidth: Int?

    /// A table renderer.
    public init(maxWidth: Int? = nil) { self.maxWidth = maxWidth }

    /// The heading line and a line per row, each ending in a newline, with no trailing spaces.
    public func render(_ columns: [Column], _ rows: [[String]]) -> String {
        let all = [columns.map(\.title)] + rows.map { $0.map(DisplayWidth.printable) }
        var widths = columns.indices.map { column in all.map { DisplayWidth.of($0[column]) }.max() ?? 0 }
        if let maxWidth {
            let gaps = 2 * (columns.count - 1)
            while widths.reduce(0, +) + gaps > maxWidth {
                guard let widest = columns.indices.filter({ columns[$0].shrinks }).max(by: { widths[$0] < widths[$1] }),
                    widths[widest] > 8
                else { break }
                widths[widest] -= 1
            }
        }
        return all.map { row in
            row.enumerated().map { column, cell -> String in
                let cut = DisplayWidth.truncate(cell, to: widths[column])
                if columns[column].alignsRight {
                    return String(repeating: " ", count: widths[column] - DisplayWidth.of(cut)) + cut
                }
                return column == row.count - 1 ? cut : DisplayWidth.pad(cut, to: widths[column])
            }
            .joined(separator: "  ")
        }
        .joined(separator: "\n") + "\n"
    }
}

/// Search results as a table: title, artist, album, duration, id — and, given documents, where
/// each download stands.
public struct TrackTable: Sendable {
    /// The widest the table may be, in columns; `nil` for no limit (output that is not a terminal).
    public var maxWidth: Int?

    /// Creates a table renderer.
    public init(maxWidth: Int? = nil) {
        self.maxWidth = maxWidth
    }

    /// The table, one line per track after a header line, each ending in a newline.
    public func render(_ tracks: [Track]) -> String {
        TextTable(maxWidth: maxWidth).render(
            [
                .init("TITLE", shrinks: true), .init("ARTIST", shrinks: true), .init("ALBUM", shrinks: true),
                .init("TIME", alignsRight: true), .init("ID"),
            ],
            tracks.map { Self.cells($0) })
    }

    /// Search results with their download states (`downloaded`, `42.0%`, `paused`, …).
    public func render(_ documents: [DownloadDocument]) -> String {
        TextTable(maxWidth: maxWidth).render(
            [
                .init("TITLE", shrinks: true), .init("ARTIST", shrinks: true), .init("ALBUM", shrinks: true),
                .init("TIME", alignsRight: true), .init("STATE"), .init("ID"),
            ],
            documents.map { document in
                var cells = Self.cells(document.status.track)
                cells.insert(Self.state(document), at: 4)
                return cells
            })
    }

    /// An album's songs: disc and track number, title, artist, duration, state, id.
    public func renderAlbum(_ documents: [DownloadDocument]) -> String {
        let discs = Set(documents.map { $0.discNumber ?? 1 }).count > 1
        return TextTable(maxWidth: maxWidth).render(
            [
                .init("#", alignsRight: true), .init("TITLE", shrinks: true), .init("ARTIST", shrinks: true),
                .init("TIME", alignsRight: true), .init("STATE"), .init("ID"),
            ],
            documents.map { document in
                let number = document.trackNumber.map(String.init) ?? "—"
                let cells = Self.cells(document.status.track)
                return [discs ? "\(document.discNumber ?? 1).\(number)" : number, cells[0], cells[1], cells[3]]
                    + [Self.state(document), cells[4]]
            })
    }

    /// An artist's songs: title, album, duration, state, id.
    public func renderArtist(_ documents: [DownloadDocument]) -> String {
        TextTable(maxWidth: maxWidth).render(
            [
                .init("TITLE", shrinks: true), .init("ALBUM", shrinks: true), .init("TIME", alignsRight: true),
                .init("STATE"), .init("ID"),
            ],
            documents.map { document in
                let cells = Self.cells(document.status.track)
                return [cells[0], cells[2], cells[3], Self.state(document), cells[4]]
            })
    }

    static func cells(_ track: Track) -> [String] {
        [
            track.name + (track.isDownloadable ? "" : " (no preview)"), track.artist, track.album ?? "—",
            track.formattedDuration ?? "—", String(track.id),
        ]
    }

    /// A download's state in a word or a percentage.
    static func state(_ document: DownloadDocument) -> String {
        switch document.state {
        case .notDownloaded: "—"
        case .downloading:
            document.expectedBytes.map { expected in
                ProgressText.progress(received: document.receivedBytes, expected: expected).components(separatedBy: " of").first
                    ?? ""
            } ?? "downloading"
        default: document.state.rawValue
        }
    }
}
