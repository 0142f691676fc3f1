import ArgumentParser
import HalfTunesKit
import HalfTunesTerminal

/// `halftunes download ID...`: downloads previews into the library, in the foreground.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download tracks' previews into the library (Ctrl-C pauses; run again to resume).")

    @Argument(
        help: "Track ids, as `halftunes search` shows them (spaces or commas between them).", transform: TrackIDList.parse)
    var ids: [TrackIDList] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Download every song of this album that has a preview (an album id, or a track's for its album; may be repeated).",
            valueName: "id"),
        transform: NumberIn.albumID)
    var album: [Int] = []

    func validate() throws {
        guard !ids.isEmpty || !album.isEmpty else { throw ValidationError("give track ids, or --album ID") }
    }

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

    @Flag(
        name: .long,
        help:
            "Hand the downloads to the agent (started if none runs) and return at once; follow them with halftunes list or halftunes wait."
    )
    var detach = false

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var downloading: DownloadOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            if detach { return try await DetachedDownload.run(self) }
            // The first slice's lookup begins as an agent started for it does.
            let lookAhead = album.isEmpty ? Array(BatchFeed(trackIDs, limit: queueLimit).upcoming) : []
            try await downloading.withControl(home: homeOptions, catalog: catalogOptions, lookAhead: lookAhead) {
                control, cap in
                var trackIDs = trackIDs
                for id in album { trackIDs += try await AlbumDownload.trackIDs(of: id, through: control) }
                let batch = BatchFeed(trackIDs, limit: queueLimit)
                try await ForegroundDownloads.run(control, json: json, batch: batch, cap: cap) { try await control.start($0) }
            }
        }
    }
}

/// What `download --album` and `export --album` take of an album.
enum AlbumDownload {
    /// The ids of an album's songs that have previews, in album order; those without are named on
    /// standard error. Throws when none has one.
    static func trackIDs(of album: Int, through control: any DownloadControl) async throws -> [Int] {
        let found = try await control.album(album)
        let name = found.album.map { "\($0.name) — \($0.artist)" } ?? "album \(album)"
        for song in found.results where !song.downloadable {
            Terminal.warn("\(DisplayWidth.printable(name)): \"\(DisplayWidth.printable(song.name))\" has no preview; skipped")
        }
        let ids = found.results.filter(\.downloadable).map(\.id)
        guard !ids.isEmpty else { throw DownloadError(.notFound, "\(name) has no previews to download") }
        return ids
    }
}
