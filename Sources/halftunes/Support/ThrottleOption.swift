import ArgumentParser
import DemoCatalog

/// `--throttle` and `--fail-previews`: how the DemoCatalog serves previews, to watch progress as on
/// a slow network or see how a failed download looks.
struct ThrottleOption: ParsableArguments {
    /// The pace of `halftunes demo`'s previews when none is given: as a real link serves them, a
    /// 1.3 MB preview taking about four seconds, so there is time to press Pause or Cancel.
    static let demoPace = 300_000

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Serve each preview at most this many bytes per second; 0 for as fast as it goes (the default for demo-catalog; demo paces them at \(demoPace), like a real link).",
            valueName: "bytes-per-second"),
        transform: Self.rate)
    var throttle: Int?

    /// 0, or at least 1000 bytes a second.
    private static func rate(_ text: String) throws -> Int {
        guard let value = Int(text), value == 0 || value >= 1000 else {
            throw NumberIn(description: "0 (as fast as it goes) or a whole number of bytes a second of at least 1000")
        }
        return value
    }

    @Option(
        name: .customLong("fail-previews"),
        help: ArgumentHelp(
            "Answer every preview request with this HTTP status (400-599), to see how a failed download looks.",
            valueName: "status"),
        transform: NumberIn.parser(400...599, what: "an HTTP error status"))
    var failPreviews: Int?

    /// Applies the settings to a catalog, with `pace` the throttle when none is given.
    func apply(to catalog: DemoCatalog, pace: Int? = nil) {
        let rate = (throttle ?? pace).flatMap { $0 == 0 ? nil : $0 }
        guard rate != nil || failPreviews != nil else { return }
        catalog.setFaults(PreviewFaults(bytesPerSecond: rate, failure: failPreviews.map { (status: $0, count: Int.max) }))
    }
}
