import Foundation

/// Whether finished downloads get their tags and cover written in: on unless `--no-tags` or
/// `HALFTUNES_NO_TAGS=1`.
public struct TaggingOptions: Sendable, Hashable {
    /// Whether a download's last step writes the track's tags into its file.
    public var writesTags: Bool
    /// Whether the cover is fetched (from the catalog's artwork URL) and written in with the tags.
    public var fetchesArtwork: Bool

    /// Options; tagging and artwork on by default.
    public init(writesTags: Bool = true, fetchesArtwork: Bool = true) {
        self.writesTags = writesTags
        self.fetchesArtwork = fetchesArtwork
    }

    /// No tags, no artwork: files stay exactly as the server sent them.
    public static let off = TaggingOptions(writesTags: false, fetchesArtwork: false)

    /// The options for a `--no-tags` flag and the environment (`HALFTUNES_NO_TAGS` set to
    /// anything but empty, `0` or `false` turns tagging off too).
    public static func resolve(
        noTags: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> TaggingOptions {
        let setting = environment["HALFTUNES_NO_TAGS"]?.lowercased() ?? ""
        let off = noTags || !(setting.isEmpty || setting == "0" || setting == "false")
        return off ? .off : TaggingOptions()
    }
}
