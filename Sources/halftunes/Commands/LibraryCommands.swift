import ArgumentParser
import Foundation
import HalfTunesKit

/// `halftunes play ID`: plays a downloaded track through the system's audio player.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play", abstract: "Play a track, downloaded or downloading (with mpv, ffplay, paplay/aplay or afplay).")

    @Argument(help: "The track id.") var id: Int
    @OptionGroup var homeOptions: HomeOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let track = try await homeOptions.withControl(downloading: false) { control in
                let track = try await control.playTarget(id)
                if track.state != .downloaded {
                    Terminal.write("Playing \(DisplayWidth.printable(track.name)) while it downloads\n")
                    try await StreamingPlayback.play(track, control: control)
                }
                return track
            }
            guard track.state == .downloaded else { return }
            let player = try AudioPlayer.find(for: URL(fileURLWithPath: track.file ?? ""))
            Terminal.write(
                "Playing \(DisplayWidth.printable(track.name)) — \(DisplayWidth.printable(track.artist)) (\(player.executable.lastPathComponent))\n"
            )
            let process = Process()
            process.executableURL = player.executable
            process.arguments = player.arguments
            // Waiting through terminationHandler: waitUntilExit spins a run loop at full CPU on Linux.
            let status: Int32 = try await withCheckedThrowingContinuation { continuation in
                process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
                do { try process.run() } catch { continuation.resume(throwing: error) }
            }
            guard status == 0 else {
                throw DownloadError(.internalError, "\(player.executable.lastPathComponent) stopped with status \(status)")
            }
        }
    }
}
