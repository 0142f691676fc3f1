import ArgumentParser
import HalfTunesKit

/// `halftunes pause ID`: pauses a download, keeping what was received.
struct PauseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause a download.")

    @Argument(help: "The track id.") var id: Int
    @OptionGroup var homeOptions: HomeOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            try await homeOptions.act(
                remote: { _ = try await $0.status(.POST, "/api/downloads/\(id)/pause") },
                local: { try await $0.pause(trackID: id) })
            Terminal.write("Paused \(id).\n")
        }
    }
}

/// `halftunes cancel ID`: cancels a download and deletes what was received.
struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Cancel a download.")

    @Argument(help: "The track id.") var id: Int
    @OptionGroup var homeOptions: HomeOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            try await homeOptions.act(
                remote: { try await $0.send(.DELETE, "/api/downloads/\(id)") },
                local: { try await $0.cancel(trackID: id) })
            Terminal.write("Cancelled \(id).\n")
        }
    }
}

/// `halftunes resume ID`: resumes a paused or failed download, in the foreground.
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Resume a paused or failed download (in the foreground).")

    @Argument(help: "The track id.") var id: Int
    @Flag(name: .long, help: "Print NDJSON events instead of progress bars.") var json = false
    @OptionGroup var homeOptions: HomeOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            if let server = homeOptions.runningServer {
                try await server.follow(json: json) { [try await server.status(.POST, "/api/downloads/\(id)/resume")] }
                return
            }
            try await ForegroundDownloads.runLocally(try await homeOptions.openService(downloading: true), json: json) { service in
                try await service.resume(trackID: id)
                guard let status = try await service.status(trackID: id) else {
                    throw Failure("track \(id) is not being downloaded")
                }
                return [status]
            }
        }
    }
}
