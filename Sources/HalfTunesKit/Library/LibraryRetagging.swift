/// Writes tags and covers into library files again (``DownloadControl/retag(_:)``), reporting a
/// line per file: for files downloaded without tags, or tagged before their catalog entry changed.
public enum LibraryRetagging {
    /// Retags `ids`, or every track in the library when `ids` is empty (oldest first: each file
    /// tagged counts as a change, and the library lists the latest change first, so this keeps
    /// its order), telling `say` a line per file and one at the end when some were kept untagged.
    public static func run(_ ids: [Int], control: any DownloadControl, say: (String) -> Void) async throws {
        let wanted = ids.isEmpty ? try await control.listing().library.map(\.id).reversed() : ids
        guard !wanted.isEmpty else {
            say("The library is empty: nothing to tag.")
            return
        }
        var kept = 0
        for id in wanted {
            let document = try await control.retag(id)
            let title = "\(DisplayWidth.printable(document.name)) — \(DisplayWidth.printable(document.artist))"
            if let warning = document.warning {
                kept += 1
                say("\(title): \(warning)")
            } else {
                say("\(title): tagged")
            }
        }
        if kept > 0 { say("\(kept) of \(wanted.count) files kept without tags.") }
    }
}
