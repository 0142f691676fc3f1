import Foundation
import HalfTunesKit

/// Plays a track that is still downloading: the player reads the audio from its standard input,
/// fed with the bytes so far and then the rest as they arrive, as the control streams them (from
/// the running server, or from the partial file another `halftunes download` writes).
enum StreamingPlayback {
    static func play(_ track: DownloadDocument, control: any DownloadControl) async throws {
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
        let status = await statuses.next() ?? 0
        guard status == 0 else {
            throw DownloadError(.internalError, "\(player.executable.lastPathComponent) stopped with status \(status)")
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
