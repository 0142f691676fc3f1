import ArgumentParser
import DemoCatalog

/// `--throttle`: how fast the DemoCatalog serves previews, to watch progress as on a slow network.
struct ThrottleOption: ParsableArguments {
    @Option(name: .long, help: "Serve previews at most this many bytes per second, to watch progress as on a slow network.")
    var throttle: Int?

    func validate() throws {
        if let throttle, throttle < 1000 { throw ValidationError("--throttle must be at least 1000 bytes per second") }
    }

    /// Applies the setting to a catalog.
    func apply(to catalog: DemoCatalog) {
        if let throttle { catalog.setFaults(PreviewFaults(bytesPerSecond: throttle)) }
    }
}
