import ArgumentParser
import HalfTunesKit

/// `--limit-rate RATE`: one cap on all downloads together, as curl's (`500k`, `2M`).
struct RateOption: ParsableArguments {
    @Option(
        name: .customLong("limit-rate"),
        help: ArgumentHelp(
            "At most this many bytes a second for all downloads together: 500k, 2M (powers of 1024), as curl's --limit-rate (default: $HALFTUNES_LIMIT_RATE, else no cap).",
            valueName: "rate"))
    var limitRate: String?

    /// The cap in bytes a second, `nil` for none.
    func resolved() throws -> Int? {
        do { return try RateSetting.bytesPerSecond(explicit: limitRate) } catch {
            throw DownloadError(.badInput, error.description)
        }
    }
}
