import AsyncHTTPClient
import Foundation
import HalfTunesKit

/// Plays a track that is still downloading: the player reads the audio from its standard input,
/// fed with the bytes so far and then the rest as they arrive, from the running server's
/// `/library/:id` or, with no server, from the partial file another `halftunes download` writes.
enum StreamingPlayback {
    static func play(_ track: DownloadDocument, owner: DownloadOwner) async throws {
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
        do {
            switch owner {
            case .server(let url, _): try await fromServer(url, track.id, into: writer)
            case .thisProcess: try await fromPartialFile(URL(fileURLWithPath: track.file ?? ""), into: writer)
            }
        } catch let error as PipeWriter.Closed {
            _ = error  // the player stopped reading (it was quit): nothing more to send
        }
        writer.close()
        var statuses = exited.stream.makeAsyncIterator()
        let status = await statuses.next() ?? 0
        guard status == 0 else {
            throw DownloadError(.internalError, "\(player.executable.lastPathComponent) stopped with status \(status)")
        }
    }

    /// The server's stream of the download: the same bytes the web page's player gets.
    private static func fromServer(_ server: URL, _ id: Int, into writer: PipeWriter) async throws {
        let request = HTTPClientRequest(url: server.absoluteString + APIRoute.file(id).target)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        guard response.status == .ok else {
            throw DownloadError(.notFound, "the server has nothing to play for track \(id) (HTTP \(response.status.code))")
        }
        for try await buffer in response.body { try await writer.write(Data(buffer.readableBytesView)) }
    }

    /// The partial file, followed while it grows (while it exists: it goes when the download
    /// completes or is cancelled, and the reader then reads what it has to the end).
    private static func fromPartialFile(_ file: URL, into writer: PipeWriter) async throws {
        let path = file.path
        let reader = GrowingFileReader(file: file) { FileManager.default.fileExists(atPath: path) }
        _ = try await reader.read { chunk in try await writer.write(Data(chunk)) }
    }
}

/// Writes to a pipe off Swift's concurrency threads (a write blocks while the player is behind).
final class PipeWriter: Sendable {
    struct Closed: Error {}
    private let handle: FileHandle
    private let queue = DispatchQueue(label: "halftunes.play.pipe")

    init(handle: FileHandle) { self.handle = handle }

    func write(_ data: Data) async throws {
        let handle = handle
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                do {
                    try handle.write(contentsOf: data)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: Closed())
                }
            }
        }
    }

    func close() { queue.sync { try? handle.close() } }
}
