import Foundation

/// Reads the library without opening the transfer session, so it works beside a running server.
public enum LibraryLookup {
    /// The library item and file of a downloaded track, or `nil` when it is not in the library.
    public static func file(of trackID: Int, in home: HalfTunesHome) throws -> (item: LibraryItem, file: URL)? {
        let store = try LibraryStore(path: home.root.appendingPathComponent("library.sqlite").path, folder: home.library)
        guard let item = try store.item(id: trackID) else { return nil }
        return (item, store.url(of: item))
    }
}
