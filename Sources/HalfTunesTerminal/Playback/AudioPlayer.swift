import Foundation
import HalfTunesKit

/// The system's audio player: the first of mpv, ffplay, paplay/aplay (WAV only) and afplay found
/// on the `PATH`, with the arguments that make it play one file and exit.
public struct AudioPlayer: Sendable, Hashable {
    /// The player program.
    public let executable: URL
    /// Its arguments, the file last.
    public let arguments: [String]

    private static let candidates: [(name: String, arguments: [String], wavOnly: Bool, standardInput: String?)] = [
        ("mpv", ["--no-video", "--really-quiet"], false, "-"),
        ("ffplay", ["-nodisp", "-autoexit", "-loglevel", "error"], false, "pipe:0"),
        ("paplay", [], true, ""),
        ("aplay", ["-q"], true, ""),
        ("afplay", [], false, nil),
    ]

    /// The player for `file`, or an error saying which to install.
    public static func find(
        for file: URL, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(DownloadError) -> AudioPlayer {
        try find(fileExtension: file.pathExtension, input: file.path, environment: environment)
    }

    /// The player for audio that arrives on its standard input (a download still in progress),
    /// or an error saying which to install.
    public static func findForStandardInput(
        fileExtension: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(DownloadError) -> AudioPlayer {
        try find(fileExtension: fileExtension, input: nil, environment: environment)
    }

    private static func find(
        fileExtension: String, input: String?, environment: [String: String]
    ) throws(DownloadError) -> AudioPlayer {
        let isWAV = fileExtension.lowercased() == "wav"
        let folders = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        for candidate in candidates where isWAV || !candidate.wavOnly {
            guard let argument = input ?? candidate.standardInput else { continue }
            for folder in folders where !folder.isEmpty {
                let path = URL(fileURLWithPath: folder).appendingPathComponent(candidate.name)
                if FileManager.default.isExecutableFile(atPath: path.path) {
                    return AudioPlayer(executable: path, arguments: candidate.arguments + (argument.isEmpty ? [] : [argument]))
                }
            }
        }
        let choices = isWAV ? "mpv, ffplay (ffmpeg), paplay (pulseaudio-utils) or aplay (alsa-utils)" : "mpv or ffplay (ffmpeg)"
        throw DownloadError(.internalError, "no audio player found: install \(choices), e.g. apt-get install mpv")
    }
}
