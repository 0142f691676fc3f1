import ArgumentParser
import TransferEngine

/// `--durability power-loss|process-crash`: what a download's bytes survive.
struct DurabilityOption: ParsableArguments {
    enum Choice: String, ExpressibleByArgument, CaseIterable {
        case powerLoss = "power-loss"
        case processCrash = "process-crash"
    }

    @Option(
        name: .long,
        help: ArgumentHelp(
            "What finished files survive: power-loss (the default: each is flushed to the device before it is reported done) or process-crash (nothing flushed, as curl and aria2c do; faster, but a power cut may lose recent files).",
            valueName: "kind"))
    var durability: Choice = .powerLoss

    /// The engine's setting.
    var resolved: Durability { durability == .powerLoss ? .powerLoss : .processCrash }
}
