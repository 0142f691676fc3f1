import ArgumentParser
import HalfTunesKit
import HalfTunesTerminal

/// `halftunes wait ID…`: follows downloads that run elsewhere (the agent's, a server's) until
/// each is in the library or has failed, with the same display as `download`.
struct WaitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until each track is in the library or has failed (exit 0 only when all are in; Ctrl-C stops waiting).")

    @Argument(help: "Track ids (spaces or commas between them).", transform: TrackIDList.parse)
    var ids: [TrackIDList] = []

    @Flag(name: .long, help: "Print NDJSON events instead of progress bars.")
    var json = false

    @OptionGroup var homeOptions: HomeOptions

    func validate() throws {
        guard !ids.isEmpty else { throw ValidationError("give the track ids to wait for") }
    }

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            // No agent running (killed, say): one started now takes up the downloads left unfinished.
            let (control, _) = try await homeOptions.control(downloading: false, agentArguments: [])
            try await control.closing { control in
                var seen = Set<Int>()
                let wanted = ids.flatMap(\.values).filter { seen.insert($0).inserted }
                // Read once the events are subscribed to (as a batch starts), so nothing that ends
                // between is missed; one that failed already counts as failed at once.
                let batch = BatchFeed(wanted, limit: 2 * wanted.count)
                try await ForegroundDownloads.run(control, json: json, batch: batch, pausesOnInterrupt: false) { slice in
                    try await Self.documents(slice, in: control)
                }
            }
        }
    }

    /// Each id's download or library entry, in the order asked.
    ///
    /// - Throws: ``DownloadError`` `.notFound` naming the ids neither downloading nor in the library.
    static func documents(_ ids: [Int], in control: any DownloadControl) async throws -> [DownloadDocument] {
        let listing = try await control.listing()
        var found: [Int: DownloadDocument] = [:]
        for document in listing.library + listing.downloads { found[document.id] = document }
        let missing = ids.filter { found[$0] == nil }
        guard missing.isEmpty else {
            let list = missing.map(String.init).joined(separator: ", ")
            throw DownloadError(
                .notFound,
                "not downloading and not in the library: \(list) (halftunes download \(list.replacingOccurrences(of: ", ", with: " ")))"
            )
        }
        return ids.compactMap { found[$0] }
    }
}
