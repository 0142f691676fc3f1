import ArgumentParser
import HalfTunesKit

/// `--no-tags`: keep downloads exactly as the server sent them.
struct TaggingOption: ParsableArguments {
    @Flag(
        name: .customLong("no-tags"),
        help: "Keep files exactly as downloaded: no tags, no cover art (also HALFTUNES_NO_TAGS=1).")
    var noTags = false

    /// The options this flag and the environment give.
    var resolved: TaggingOptions { TaggingOptions.resolve(noTags: noTags) }
}
