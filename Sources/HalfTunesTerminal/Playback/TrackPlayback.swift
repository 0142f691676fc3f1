import Foundation
import HalfTunesKit

/// Plays a track through the system's audio player (``AudioPlayer``): a downloaded file by its
/// path, a track still downloading through the player's standard input — the bytes so far, then
/// the rest as they arrive, as the control streams them.
///
/// The player's own output is kept from the terminal unless `verbose` (audio libraries print
/// dozens of lines when there is no sound card); a player that found no device, or failed, ends
/// the call with one ``PlaybackFailure`` line that says so.
public enum TrackPlayback {
    /// Plays the library file of `track` and waits for the player to end.
    ///
    /// - Returns: The player that played it.
    /// - Throws: ``DownloadError`` when no player is found; ``PlaybackFailure`` when it could not play.
    @discardableResult
    public static func playFile(
        of track: DownloadDocument, verbose: Bool = false, announce: (AudioPlayer) -> Void
    ) async throws -> AudioPlayer {
        let player = try AudioPlayer.find(for: URL(fileURLWithPath: track.file ?? ""))
        announce(player)
        let process = Process()
        process.executableURL = player.executable
        process.arguments = player.arguments
        let output = verbose ? nil : PlayerOutput()
        if let output { (process.standardOutput, process.standardError) = (output.pipe, output.pipe) }
        // Waiting through terminationHandler: waitUntilExit spins a run loop at full CPU on Linux.
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        try await check(status, of: player, output: output)
        return player
    }

    /// Plays `track`, still downloading, from `control`'s stream of its bytes.
    ///
    /// - Throws: ``DownloadError`` when no player is found or the stream fails; ``PlaybackFailure``
    ///   when the player could not play.
    public static func playStreaming(_ track: DownloadDocument, control: any DownloadControl, verbose: Bool = false) async throws
    {
        // A partial file is named like the finished one, plus ".part".
        let ext =
            track.file.map { URL(fileURLWithPath: $0).deletingPathExtension().pathExtension }
            ?? LibraryNaming.fileExtension(previewURL: track.previewURL)
        let player = try AudioPlayer.findForStandardInput(fileExtension: ext)
        signal(SIGPIPE, SIG_IGN)  // a player that quits early closes its input: a write error, not a signal
        let input = Pipe()
        let process = Process()
        process.executableURL = player.executable
        process.arguments = player.arguments
        process.standardInput = input
        let output = verbose ? nil : PlayerOutput()
        if let output { (process.standardOutput, process.standardError) = (output.pipe, output.pipe) }
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { finished in
            exited.continuation.yield(finished.terminationStatus)
            exited.continuation.finish()
        }
        try process.run()
        let writer = PipeWriter(handle: input.fileHandleForWriting)
        // A player that stops reading (it was quit) ends the stream: nothing more to send.
        do { try await control.streamTrack(track.id) { chunk in await writer.write(Data(chunk)) } } catch {
            writer.close()  // the player plays what it got, then ends
            throw error
        }
        writer.close()
        var statuses = exited.stream.makeAsyncIterator()
        try await check(await statuses.next() ?? 0, of: player, output: output)
    }

    private static func check(_ status: Int32, of player: AudioPlayer, output: PlayerOutput?) async throws(PlaybackFailure) {
        let name = player.executable.lastPathComponent
        if let output {
            if let failure = await output.failure(status: status, player: name) { throw failure }
        } else if status != 0 {
            throw PlaybackFailure(description: "\(name) stopped with status \(status)")
        }
    }
}

/// Writes to a pipe off Swift's concurrency threads (a write blocks while the player is behind).
final class PipeWriter: Sendable {
    private let handle: FileHandle
    private let queue = DispatchQueue(label: "halftunes.play.pipe")

    init(handle: FileHandle) { self.handle = handle }

    /// Writes `data`; `false` when the reader has closed the pipe.
    func write(_ data: Data) async -> Bool {
        let handle = handle
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: (try? handle.write(contentsOf: data)) != nil) }
        }
    }

    func close() { queue.sync { try? handle.close() } }
}
