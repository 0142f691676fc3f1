import ArgumentParser
import HalfTunesKit

/// `halftunes download ID...`: downloads previews into the library, in the foreground.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download tracks' previews into the library (Ctrl-C pauses; run again to resume).")

    @Argument(
        help: "Track ids, as `halftunes search` shows them (spaces or commas between them).", transform: TrackIDList.parse)
    var ids: [TrackIDList]

    /// The ids given, in order.
    var trackIDs: [Int] { ids.flatMap(\.values) }

    @Flag(name: .long, help: "Print NDJSON events instead of progress bars.")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "At most this many of the ids are looked up and queued at once; the others follow as those finish (a run cut short leaves them to the next run of the same command).",
            valueName: "n"),
        transform: NumberIn.parser(1...Int.max))
    var queueLimit = BatchFeed.defaultLimit

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var tagging: TaggingOption
    @OptionGroup var durability: DurabilityOption
    @OptionGroup var rate: RateOption

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let cap = try rate.resolved()
            try await homeOptions.withControl(
                downloading: true, catalog: catalogOptions, tagging: tagging.resolved, durability: durability.resolved,
                bandwidthLimit: cap
            ) { control in
                if case .server = control.owner {
                    if tagging.noTags {
                        Terminal.say("note: --no-tags does not apply: the running server downloads, tagging as it was started")
                    }
                    if rate.limitRate != nil {
                        Terminal.say("note: --limit-rate does not apply: the running server downloads, as it was started")
                    }
                    if durability.durability != .powerLoss {
                        Terminal.say("note: --durability does not apply: the running server downloads, as it was started")
                    }
                }
                let batch = BatchFeed(trackIDs, limit: queueLimit)
                let shownCap = control.owner == .thisProcess ? cap : nil
                try await ForegroundDownloads.run(control, json: json, batch: batch, cap: shownCap) {
                    try await control.start($0)
                }
            }
        }
    }
}
