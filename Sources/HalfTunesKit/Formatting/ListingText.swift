import Foundation

/// The listing as `halftunes list` prints it: downloads in flight with their progress, then the
/// library's files.
public enum ListingText {
    /// The text, lines ending in newlines; `libraryFolder` is named in the library's heading.
    public static func render(_ listing: Listing, libraryFolder: URL) -> String {
        if listing.downloads.isEmpty && listing.library.isEmpty {
            return "Nothing downloaded yet. Try: halftunes search TERM, then halftunes download ID.\n"
        }
        var out = ""
        if !listing.downloads.isEmpty {
            out += "Downloads\n"
            for item in listing.downloads {
                let progress = ProgressText.progress(received: item.receivedBytes, expected: item.expectedBytes)
                let reason = item.reason.map { " — \($0)" } ?? ""
                out += "  \(item.state.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)) \(progress)  "
                out += "\(DisplayWidth.printable(item.name)) — \(DisplayWidth.printable(item.artist)) [\(item.id)]\(reason)\n"
            }
        }
        if !listing.library.isEmpty {
            out += "Library (\(libraryFolder.path))\n"
            for item in listing.library {
                let name = item.file.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? ""
                let warning = item.warning.map { "  — \($0)" } ?? ""
                out += "  \(name)  \(ProgressText.bytes(item.receivedBytes))\(warning)\n"
            }
        }
        return out
    }
}
