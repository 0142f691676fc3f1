import ArgumentParser
import Foundation
import HalfTunesKit

/// `halftunes play ID`: plays a downloaded track through the system's audio player.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play", abstract: "Play a downloaded track (with mpv, ffplay, paplay/aplay or afplay).")

    @Argument(help: "The track id.") var id: Int
    @OptionGroup var homeOptions: HomeOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            guard let (item, file) = try LibraryLookup.file(of: id, in: homeOptions.resolved) else {
                throw Failure("track \(id) is not in the library; download it first: halftunes download \(id)")
            }
            let player = try AudioPlayer.find(for: file)
            Terminal.write("Playing \(DisplayWidth.printable(item.track.name)) — \(DisplayWidth.printable(item.track.artist)) (\(player.executable.lastPathComponent))\n")
            let process = Process()
            process.executableURL = player.executable
            process.arguments = player.arguments
            // Waiting through terminationHandler: waitUntilExit spins a run loop at full CPU on Linux.
            let status: Int32 = try await withCheckedThrowingContinuation { continuation in
                process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                do { try process.run() } catch { continuation.resume(throwing: error) }
            }
            guard status == 0 else {
                throw Failure("\(player.executable.lastPathComponent) stopped with status \(status)")
            }
        }
    }
}

/// `halftunes remove ID`: removes a track from the library, deleting its file.
struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a track from the library (deletes its file).")

    @Argument(help: "The track id.") var id: Int
    @OptionGroup var homeOptions: HomeOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            try await homeOptions.act(
                remote: { try await $0.send(.DELETE, "/api/library/\(id)") },
                local: { try await $0.remove(trackID: id) })
            Terminal.write("Removed \(id) from the library.\n")
        }
    }
}
