import ArgumentParser
import HalfTunesKit
import HalfTunesTerminal

/// `halftunes pause ID`: pauses a download, keeping what was received.
struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause a download.")

    @Argument(help: "The track id.", transform: NumberIn.trackID) var id: Int
    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            _ = try await homeOptions.withControl(downloading: false, catalog: catalogOptions) { try await $0.pause(id) }
            Terminal.write("Paused \(id).\n")
        }
    }
}

/// `halftunes cancel ID`: cancels a download and deletes what was received.
struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel a download.")

    @Argument(help: "The track id.", transform: NumberIn.trackID) var id: Int
    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            try await homeOptions.withControl(downloading: false, catalog: catalogOptions) { try await $0.cancel(id) }
            Terminal.write("Cancelled \(id).\n")
        }
    }
}

/// `halftunes resume ID`: resumes a paused or failed download, in the foreground.
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume a paused or failed download (in the foreground).")

    @Argument(help: "The track id.", transform: NumberIn.trackID) var id: Int
    @Flag(name: .long, help: "Print NDJSON events instead of progress bars.") var json = false
    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var downloading: DownloadOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            try await downloading.withControl(home: homeOptions, catalog: catalogOptions) { control, cap in
                try await ForegroundDownloads.run(control, json: json, batch: BatchFeed([id]), cap: cap) { _ in
                    [try await control.resume(id)]
                }
            }
        }
    }
}

/// `halftunes remove ID`: removes a track from the library, deleting its file.
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a track from the library (deletes its file).")

    @Argument(help: "The track id.", transform: NumberIn.trackID) var id: Int
    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            try await homeOptions.withControl(downloading: false, catalog: catalogOptions) { try await $0.remove(id) }
            Terminal.write("Removed \(id) from the library.\n")
        }
    }
}
