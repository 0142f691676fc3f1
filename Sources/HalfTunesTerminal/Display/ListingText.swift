import Foundation
import HalfTunesKit

/// The listing as `halftunes list` prints it: a table of the downloads in flight with their
/// progress, then one of the library with sizes, aligned by display width.
public enum ListingText {
    /// The text, lines ending in newlines; `libraryFolder` is named in the library's heading;
    /// `maxWidth` fits the tables to a terminal.
    public static func render(_ listing: Listing, libraryFolder: URL, maxWidth: Int? = nil) -> String {
        if listing.downloads.isEmpty && listing.library.isEmpty {
            return "Nothing downloaded yet. Try: halftunes search TERM, then halftunes download ID.\n"
        }
        let table = TextTable(maxWidth: maxWidth)
        var out = ""
        if !listing.downloads.isEmpty {
            out += "Downloads\n"
            out += table.render(
                [
                    .init("STATE"), .init("PROGRESS", alignsRight: true), .init("TITLE", shrinks: true),
                    .init("ARTIST", shrinks: true),
                    .init("ID"), .init("NOTE", shrinks: true),
                ],
                listing.downloads.map { item in
                    [
                        item.state.rawValue, ProgressText.progress(received: item.receivedBytes, expected: item.expectedBytes),
                        item.name,
                        item.artist, String(item.id), item.reason ?? "",
                    ]
                })
        }
        if !listing.library.isEmpty {
            if !out.isEmpty { out += "\n" }
            let count = listing.libraryCount ?? listing.library.count
            let bytes = listing.libraryBytes ?? listing.library.reduce(0) { $0 + $1.receivedBytes }
            let totals = "): \(count == 1 ? "1 track" : "\(count) tracks"), \(ProgressText.bytes(bytes))"
            // On a terminal the heading fits the window: the folder gives way, from the left.
            let room = maxWidth.map { $0 - 1 - DisplayWidth.of("Library (" + totals) } ?? Int.max
            out += "Library (" + DisplayWidth.fittingPath(libraryFolder.path, in: room) + totals + "\n"
            out += table.render(
                [
                    .init("TITLE", shrinks: true), .init("ARTIST", shrinks: true), .init("SIZE", alignsRight: true), .init("ID"),
                    .init("FILE", shrinks: true),
                ],
                listing.library.map { item in
                    let name = item.file.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? ""
                    let file = name + (item.warning.map { " (\($0))" } ?? "")
                    return [item.name, item.artist, ProgressText.bytes(item.receivedBytes), String(item.id), file]
                })
        }
        return out
    }
}
