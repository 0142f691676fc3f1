import ArgumentParser
import HalfTunesKit

/// What a command that downloads in the foreground takes besides its ids: `--no-tags`,
/// `--durability`, `--limit-rate` (`download`, `resume`, `import` alike).
struct DownloadOptions: ParsableArguments {
    @OptionGroup var tagging: TaggingOption
    @OptionGroup var durability: DurabilityOption
    @OptionGroup var rate: RateOption

    /// Runs `body` with the downloading control of `home` and the cap this process's downloads
    /// keep (`nil` through a running server, whose downloads go on as it was started: then each
    /// option given that cannot apply is said once).
    func withControl<T>(
        home: HomeOptions, catalog: CatalogOptions, _ body: (any DownloadControl, _ cap: Int?) async throws -> T
    ) async throws -> T {
        let cap = try rate.resolved()
        return try await home.withControl(
            downloading: true, catalog: catalog, tagging: tagging.resolved, durability: durability.resolved,
            bandwidthLimit: cap
        ) { control in
            let owner: String
            switch control.owner {
            case .thisProcess: return try await body(control, cap)
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
