import ArgumentParser
import HalfTunesKit

/// What a command that downloads in the foreground takes besides its ids: `--no-tags`,
/// `--durability`, `--limit-rate` (`download`, `resume`, `import` alike).
struct DownloadOptions: ParsableArguments {
    @OptionGroup var tagging: TaggingOption
    @OptionGroup var durability: DurabilityOption
    @OptionGroup var rate: RateOption

    /// The same options, with `catalog`'s, for an agent the command starts.
    func agentArguments(catalog: CatalogOptions) -> [String] {
        AgentForwarding.arguments(catalog: catalog, tagging: tagging, rate: rate, durability: durability.durability)
    }

    /// Runs `body` with the downloading control of `home` — the agent's, started with these
    /// options when none runs — and the cap this process's downloads keep (`nil` through an agent
    /// already running, whose downloads go on as it was started: then each option
    /// given that cannot apply is said once). An agent started now looks `lookAhead` up in the
    /// catalog as it starts (the ids the command starts first).
    func withControl<T>(
        home: HomeOptions, catalog: CatalogOptions, lookAhead: [Int] = [],
        _ body: (any DownloadControl, _ cap: Int?) async throws -> T
    ) async throws -> T {
        let cap = try rate.resolved()
        let (control, startedAgent) = try await home.control(
            downloading: true, catalog: catalog, tagging: tagging.resolved, durability: durability.resolved,
            bandwidthLimit: cap, agentArguments: agentArguments(catalog: catalog), lookAhead: lookAhead)
        return try await control.closing { control in
            let owner: String
            switch control.owner {
            case .thisProcess: return try await body(control, cap)
            case .agent where startedAgent: return try await body(control, cap)
            case .agent: owner = "the running agent"
            }
            let notes = AgentForwarding.notes(
                owner: owner, tagging: tagging, rate: rate, durability: durability.durability)
            for note in notes { Terminal.say(note) }
            return try await body(control, nil)
        }
    }
}

/// The options a command forwards to an agent it starts, and the notes naming those that do not
/// apply to an agent already running, which downloads as it was started.
enum AgentForwarding {
    static func arguments(
        catalog: CatalogOptions, tagging: TaggingOption, rate: RateOption, durability: DurabilityOption.Choice = .powerLoss
    ) -> [String] {
        var arguments = catalog.forwarded
        if tagging.noTags { arguments.append("--no-tags") }
        if let rate = rate.limitRate { arguments += ["--limit-rate", rate] }
        if durability != .powerLoss { arguments += ["--durability", durability.rawValue] }
        return arguments
    }

    static func notes(
        owner: String, tagging: TaggingOption, rate: RateOption, durability: DurabilityOption.Choice = .powerLoss
    ) -> [String] {
        var notes: [String] = []
        if tagging.noTags { notes.append("note: --no-tags does not apply: \(owner) downloads, tagging as it was started") }
        if rate.limitRate != nil {
            notes.append("note: --limit-rate does not apply: \(owner) downloads, as it was started (halftunes limit-rate)")
        }
        if durability != .powerLoss { notes.append("note: --durability does not apply: \(owner) downloads, as it was started") }
        return notes
    }
}
