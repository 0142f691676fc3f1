import ArgumentParser
import Foundation
import HalfTunesKit

/// Shows downloads in the foreground until each completes or fails. On Ctrl-C (or SIGTERM) a
/// local control's downloads are paused (the same command resumes them); a server's go on.
enum ForegroundDownloads {
    private enum Input: Sendable {
        case interrupt
        /// Every event that was waiting, in order.
        case events([DownloadEvent])
        /// Events may have been missed (the stream ended, or the listener fell behind, and was
        /// subscribed to anew): where each download stands comes from the listing.
        case missedEvents
    }

    /// - Parameters:
    ///   - batch: The track ids, handed to `start` a slice at a time (see ``BatchFeed``).
    ///   - start: Starts the downloads of a slice (after the events are subscribed) and returns
    ///     them.
    ///   - write: Where the display's text goes (standard output).
    /// - Throws: `ExitCode` 8 when a download failed, 130 when interrupted; the error of a slice
    ///   that could not start, once the slices before it have finished.
    static func run(
        _ control: any DownloadControl, json: Bool, batch: BatchFeed, write: @escaping (String) -> Void = Terminal.write,
        start: ([Int]) async throws -> [DownloadDocument]
    ) async throws {
        // What a batch of events prints goes out in one write (a batch of 2,000 small files is
        // 4,000 lines).
        let output = PendingOutput(write: write)
        defer { output.flush() }
        let renderer = ProgressDisplay(
            mode: json ? .json : (Terminal.isInteractive ? .terminal : .plain), color: Terminal.usesColor,
            columns: { Terminal.columns }, rows: { Terminal.rows },
            write: output.append,
            warn: { line in
                output.flush()
                Terminal.warn(line)
            })
        let events = try await control.eventBatches()
        // Signals and events, merged into one stream that this task alone consumes.
        let (inputs, feed) = AsyncStream<Input>.makeStream()
        let signals = await InterruptSignal.trap()
        let forwarders = [
            Task { for await _ in signals { feed.yield(.interrupt) } },
            Task {
                // A stream that ends while the command still waits (the server lets go of a
                // listener that fell behind; a connection breaks) is subscribed to anew, and where
                // each download stands is read from the listing. A server that keeps ending streams at once is given up after three.
                var events = events
                var emptyEnds = 0
                while true {
                    var delivered = false
                    for await batch in events {
                        delivered = true
                        feed.yield(.events(batch))
                    }
                    emptyEnds = delivered ? 0 : emptyEnds + 1
                    guard !Task.isCancelled, emptyEnds < 3, let again = try? await control.eventBatches() else { break }
                    events = again
                    feed.yield(.missedEvents)
                }
                feed.finish()
            },
        ]
        defer { forwarders.forEach { $0.cancel() } }

        var pending = Set<Int>()
        var batch = batch
        // A slice that cannot start (an id the catalog does not have, say) ends the feeding; the
        // downloads already started go on, and its error is the command's.
        var refused: (any Error)?
        func startSlices() async throws {
            while refused == nil, let slice = batch.nextSlice(unfinished: pending.count) {
                let documents: [DownloadDocument]
                do { documents = try await start(Array(slice)) } catch {
                    // The first slice's error ends the command at once: nothing has started.
                    if slice.startIndex == batch.ids.startIndex { throw error }
                    refused = error
                    break
                }
                for document in documents {
                    renderer.add(document)
                    if document.state != .downloaded { pending.insert(document.id) }
                }
            }
            output.flush()
        }
        renderer.expect(batch.ids.count)
        try await startSlices()
        var done: Bool { pending.isEmpty && (batch.isExhausted || refused != nil) }
        // Everything was in the library already: nothing to wait for.
        if done { feed.finish() }
        var failed = 0
        loop: for await input in inputs {
            if done { break loop }
            switch input {
            case .interrupt:
                renderer.note(await interrupted(control, pending: pending))
                throw ExitCode(ExitStatus.interrupted)
            case .events(let events):
                for event in events {
                    renderer.show(event)
                    switch event {
                    case .completed(let id, _, _), .removed(let id):
                        pending.remove(id)
                    case .failed(let id, _):
                        if pending.remove(id) != nil { failed += 1 }
                    case .fellBehind:
                        break  // the stream ends after it, and is subscribed to anew (.missedEvents)
                    case .progress, .stateChanged, .retrying:
                        break
                    }
                }
                output.flush()
                try await startSlices()
                if done { break loop }
            case .missedEvents:
                // What ended meanwhile is shown as its events would have shown it.
                let listing = try await control.listing()
                for document in listing.library where pending.remove(document.id) != nil {
                    let file = URL(filePath: document.file ?? "", directoryHint: .notDirectory)
                    renderer.show(.completed(trackID: document.id, file: file, warning: document.warning))
                }
                for document in listing.downloads where document.state == .failed && pending.remove(document.id) != nil {
                    renderer.show(.failed(trackID: document.id, reason: document.reason ?? "unknown error"))
                    failed += 1
                }
                output.flush()
                try await startSlices()
                if done { break loop }
            }
        }
        if let refused { throw refused }
        if !pending.isEmpty || !batch.isExhausted {
            throw DownloadError(
                .upstreamFailure,
                "lost the download events with \(pending.count + batch.remaining) download(s) unfinished; "
                    + "halftunes list shows them")
        }
        if failed > 0 { throw ExitCode(ExitStatus.downloadFailed) }
    }

    private static func interrupted(_ control: any DownloadControl, pending: Set<Int>) async -> String {
        switch control.owner {
        case .thisProcess:
            for id in pending { _ = try? await control.pause(id) }
            return "Paused. Run the same command again to resume."
        case .server(_, let pid):
            return "Still downloading in halftunes serve (process \(pid)); `halftunes list` shows how far."
        }
    }
}

/// Text for standard output, held until ``flush()`` writes it at once.
private final class PendingOutput {
    private var text = ""
    private let write: (String) -> Void

    init(write: @escaping (String) -> Void) { self.write = write }

    func append(_ line: String) { text += line }

    func flush() {
        guard !text.isEmpty else { return }
        write(text)
        text = ""
    }
}
