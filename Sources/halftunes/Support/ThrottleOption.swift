import ArgumentParser
import DemoCatalog

/// `--throttle` and `--fail-previews`: how the DemoCatalog serves previews, to watch progress as on
/// a slow network or see how a failed download looks.
struct ThrottleOption: ParsableArguments {
    @Option(
        name: .long, help: "Serve previews at most this many bytes per second, to watch progress as on a slow network.",
        transform: NumberIn.parser(1000...Int.max))
    var throttle: Int?

    @Option(
        name: .customLong("fail-previews"),
        help: ArgumentHelp(
            "Answer every preview request with this HTTP status (400-599), to see how a failed download looks.",
            valueName: "status"),
        transform: NumberIn.parser(400...599, what: "an HTTP error status"))
    var failPreviews: Int?

    /// Applies the settings to a catalog.
    func apply(to catalog: DemoCatalog) {
        guard throttle != nil || failPreviews != nil else { return }
        catalog.setFaults(
            PreviewFaults(bytesPerSecond: throttle, failure: failPreviews.map { (status: $0, count: Int.max) }))
    }
}
