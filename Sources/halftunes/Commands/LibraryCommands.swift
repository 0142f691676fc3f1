import ArgumentParser
import Foundation
import HalfTunesKit
import HalfTunesTerminal

/// `halftunes play ID`: plays a downloaded track through the system's audio player.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play", abstract: "Play a track, downloaded or downloading (with mpv, ffplay, paplay/aplay or afplay).")

    @Argument(help: "The track id.", transform: NumberIn.trackID) var id: Int
    @Flag(name: .long, help: "Let the player's own messages through to the terminal.") var verbose = false
    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let track = try await homeOptions.withControl(downloading: false, catalog: catalogOptions) { control in
                let track = try await control.playTarget(id)
                if track.state != .downloaded {
                    Terminal.write("Playing \(DisplayWidth.printable(track.name)) while it downloads\n")
                    try await TrackPlayback.playStreaming(track, control: control, verbose: verbose)
                }
                return track
            }
            guard track.state == .downloaded else { return }
            try await TrackPlayback.playFile(of: track, verbose: verbose) { player in
                Terminal.write(
                    "Playing \(DisplayWidth.printable(track.name)) — \(DisplayWidth.printable(track.artist)) (\(player.executable.lastPathComponent))\n"
                )
            }
        }
    }
}
