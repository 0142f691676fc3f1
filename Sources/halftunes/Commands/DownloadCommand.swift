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
    @OptionGroup var downloading: DownloadOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            try await downloading.withControl(home: homeOptions, catalog: catalogOptions) { control, cap in
                let batch = BatchFeed(trackIDs, limit: queueLimit)
                try await ForegroundDownloads.run(control, json: json, batch: batch, cap: cap) { try await control.start($0) }
            }
        }
    }
}
