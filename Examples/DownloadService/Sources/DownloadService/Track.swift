import Foundation

/// A song whose preview can be downloaded: what the tutorial's `Track` holds.
public struct Track: Sendable, Hashable {
    /// The song's title.
    public var name: String
    /// Who sings it.
    public var artist: String
    /// Where its preview is.
    public var previewURL: URL
    /// Whether its preview is on disk.
    public var downloaded = false

    /// A track.
    public init(name: String, artist: String, previewURL: URL) {
        self.name = name
        self.artist = artist
        self.previewURL = previewURL
    }
}
