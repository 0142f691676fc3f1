import Foundation
import HalfTunesKit

/// A batch of downloads followed in the foreground until each has completed or failed, shown on a
/// ``ProgressDisplay``: the ids go in a slice at a time (``BatchFeed``), events move the display,
/// events missed while a stream was away are read from the listing, and an interrupt pauses this
/// process's downloads (a server's go on).
///
/// Ids the catalog does not have are named as they are met and left out, and the rest go on (as
/// curl and aria2 go on with the rest of a list); the batch then ends by throwing
/// ``DownloadError/unknownTracks(_:)`` with them, unless a download failed. A slice that cannot
/// start for another reason ends the feeding: the downloads already started go on, and its error
/// is thrown at the end — at once when it is the first slice. Used from one task.
public final class ForegroundBatch {
    /// What the batch waits for.
    public enum Input: Sendable {
        /// Ctrl-C or SIGTERM.
        case interrupt
        /// Every event that was waiting, in order.
        case events([DownloadEvent])
        /// Events may have been missed (a stream ended and was subscribed to anew).
        case missedEvents
    }

    /// How a batch ended.
    public enum Outcome: Sendable, Equatable {
        /// Every download ended; `failed` of them failed.
        case finished(failed: Int)
        /// Interrupted: this process's downloads were paused (or a server's left running).
        case interrupted
    }

    private let control: any DownloadControl
    private let display: ProgressDisplay
    private let output: BufferedOutput
    private let start: ([Int]) async throws -> [DownloadDocument]
    private let pausesOnInterrupt: Bool
    private var feed: BatchFeed
    /// Downloads started and not ended yet.
    public private(set) var pending = Set<Int>()
    private var refused: (any Error)?
    private var failed = 0
    /// The ids the catalog does not have, in the order met.
    public private(set) var unknown: [Int] = []

    /// - Parameters:
    ///   - output: Where `display` writes; flushed after each step, so a step's lines go out in one write.
    ///   - start: Starts the downloads of a slice and returns them (called after the events are
    ///     subscribed).
    ///   - pausesOnInterrupt: Whether an interrupt pauses the agent's downloads (`download`), or
    ///     only stops following them (`wait`).
    public init(
        control: any DownloadControl, feed: BatchFeed, display: ProgressDisplay, output: BufferedOutput,
        pausesOnInterrupt: Bool = true, start: @escaping ([Int]) async throws -> [DownloadDocument]
    ) {
        (self.control, self.feed, self.display, self.output, self.start) = (control, feed, display, output, start)
        self.pausesOnInterrupt = pausesOnInterrupt
    }

    /// Whether nothing is left to wait for.
    public var isDone: Bool { pending.isEmpty && (feed.isExhausted || refused != nil) }

    /// Starts the batch and follows it to its end through `inputs`.
    ///
    /// - Throws: The error of a slice that could not start; ``DownloadError`` `.upstreamFailure`
    ///   when the inputs end with downloads unfinished; ``DownloadError/unknownTracks(_:)`` when
    ///   some ids were not in the catalog and no download failed.
    public func run(_ inputs: AsyncStream<Input>) async throws -> Outcome {
        defer {
            output.flush()
            display.tellFailures()
        }
        display.expect(feed.ids.count)
        try await startSlices()
        if !isDone {
            for await input in inputs {
                switch input {
                case .interrupt:
                    await interrupt()
                    return .interrupted
                case .events(let events): take(events)
                case .missedEvents: try await catchUp()
                }
                try await startSlices()
                if isDone { break }
            }
        }
        if let refused { throw refused }
        guard isDone else {
            throw DownloadError(
                .upstreamFailure,
                "lost the download events with \(pending.count + feed.remaining) download(s) unfinished; "
                    + "halftunes list shows them")
        }
        if failed == 0, !unknown.isEmpty { throw DownloadError.unknownTracks(unknown) }
        return .finished(failed: failed)
    }

    /// Starts the slices that fit under the feed's limit.
    func startSlices() async throws {
        while refused == nil, let slice = feed.nextSlice(unfinished: pending.count) {
            let documents: [DownloadDocument]
            do { documents = try await startKnown(Array(slice)) } catch {
                if slice.startIndex == feed.ids.startIndex { throw error }  // nothing has started
                refused = error
                break
            }
            for document in documents {
                display.add(document)
                switch document.state {
                case .downloaded: break
                // Ended before it was followed (what `wait` may be given): shown so by `add`.
                case .failed: failed += 1
                default: pending.insert(document.id)
                }
            }
        }
        output.flush()
    }

    /// Starts `ids` but those the catalog does not have, which are named on the display and left out.
    private func startKnown(_ ids: [Int]) async throws -> [DownloadDocument] {
        let (started, missing) = try await KnownTracks.start(ids, with: start)
        for id in missing {
            unknown.append(id)
            // A batch of one has only its error to say.
            if feed.ids.count > 1 { display.note("Track \(id) — not in the catalog") }
        }
        if !missing.isEmpty { display.expect(feed.ids.count - unknown.count) }
        return started
    }

    /// Shows events and notes which downloads ended.
    func take(_ events: [DownloadEvent]) {
        for event in events {
            display.show(event)
            switch event {
            case .completed(let id, _, _), .removed(let id): pending.remove(id)
            case .failed(let id, _): if pending.remove(id) != nil { failed += 1 }
            case .fellBehind, .progress, .stateChanged, .retrying: break
            }
        }
        output.flush()
    }

    /// Shows what ended while events were missed, as its events would have shown it.
    func catchUp() async throws {
        let listing = try await control.listing()
        for document in listing.library where pending.remove(document.id) != nil {
            let file = URL(filePath: document.file ?? "", directoryHint: .notDirectory)
            display.show(.completed(trackID: document.id, file: file, warning: document.warning))
        }
        for document in listing.downloads where document.state == .failed && pending.remove(document.id) != nil {
            display.show(.failed(trackID: document.id, reason: document.reason ?? "unknown error"))
            failed += 1
        }
        output.flush()
    }

    /// Pauses this process's downloads (shown as paused), or leaves a server's running, and says
    /// which on a line below the display.
    func interrupt() async {
        if !pausesOnInterrupt, case .agent(let pid) = control.owner {
            display.end(note: "Still downloading in the HalfTunes agent (process \(pid)); `halftunes list` shows how far.")
            return output.flush()
        }
        for id in pending.sorted() where (try? await control.pause(id)) != nil {
            display.show(.stateChanged(trackID: id, state: .paused))
        }
        display.end(note: "Paused. Run the same command again to resume.")
        output.flush()
    }

    /// The inputs of a batch on `control`: its event batches — a stream that ends while the batch
    /// waits is subscribed to anew, announced by ``Input/missedEvents``; a control whose streams
    /// keep ending empty is given up after three — merged with `interrupts`.
    ///
    /// Subscribes before it returns, so nothing started after the call is missed. The stream
    /// ends when the events do; cancel the returned tasks once the batch has ended.
    public static func inputs(
        from control: any DownloadControl, interrupts: AsyncStream<Void>
    ) async throws -> (inputs: AsyncStream<Input>, forwarders: [Task<Void, Never>]) {
        let first = try await control.eventBatches()
        let (inputs, feed) = AsyncStream<Input>.makeStream()
        let forwarders = [
            Task { for await _ in interrupts { feed.yield(.interrupt) } },
            Task {
                var events = first
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
        return (inputs, forwarders)
    }
}

/// Text for standard output, held until ``flush()`` writes it at once.
public final class BufferedOutput {
    private var text = ""
    private let write: (String) -> Void

    /// Output that `flush()` hands to `write`.
    public init(write: @escaping (String) -> Void) { self.write = write }

    /// Adds text.
    public func append(_ text: String) { self.text += text }

    /// Writes what was added since the last flush, if anything.
    public func flush() {
        guard !text.isEmpty else { return }
        write(text)
        text = ""
    }
}
