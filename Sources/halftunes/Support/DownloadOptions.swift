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
        var arguments = catalog.forwarded
        if tagging.noTags { arguments.append("--no-tags") }
        if let rate = rate.limitRate { arguments += ["--limit-rate", rate] }
        if durability.durability != .powerLoss { arguments += ["--durability", durability.durability.rawValue] }
        return arguments
    }

    /// Runs `body` with the downloading control of `home` — the agent's, started with these
    /// options when none runs — and the cap this process's downloads keep (`nil` through an agent
    /// or server already running, whose downloads go on as it was started: then each option
    /// given that cannot apply is said once).
    func withControl<T>(
        home: HomeOptions, catalog: CatalogOptions, _ body: (any DownloadControl, _ cap: Int?) async throws -> T
    ) async throws -> T {
        let cap = try rate.resolved()
        let (control, startedAgent) = try await home.control(
            downloading: true, catalog: catalog, tagging: tagging.resolved, durability: durability.resolved,
            bandwidthLimit: cap, agentArguments: agentArguments(catalog: catalog))
        return try await control.closing { control in
            let owner: String
            switch control.owner {
            case .thisProcess: return try await body(control, cap)
            case .agent where startedAgent: return try await body(control, cap)
            case .server: owner = "the running server"
            case .agent: owner = "the running agent"
            }
            if tagging.noTags {
                Terminal.say("note: --no-tags does not apply: \(owner) downloads, tagging as it was started")
            }
            if rate.limitRate != nil {
                Terminal.say("note: --limit-rate does not apply: \(owner) downloads, as it was started")
            }
            if durability.durability != .powerLoss {
                Terminal.say("note: --durability does not apply: \(owner) downloads, as it was started")
            }
            return try await body(control, nil)
        }
    }
}
