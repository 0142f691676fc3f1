import Foundation
import HalfTunesKit
import HalfTunesTerminal
import ITunesSearch
import Synchronization
import Testing

/// A foreground batch watching a server whose event stream ends while a track is still on its way
/// (a connection that broke, a read that timed out): it subscribes anew and reads where the track
/// stands, instead of ending with "lost the download events". The control is a stand-in: what is
/// tested is the batch's steps, not the wire (ServeCommandTests crosses it).
@Suite("A foreground batch when its event stream ends early", .timeLimit(.minutes(1)))
struct ForegroundBatchTests {
    /// A control whose event streams are scripted: each subscription gets the next script's
    /// batches and then ends, except the last, which stays open; the listing says what `listing`
    /// returns once the streams have run out.
    final class ScriptedControl: DownloadControl {
        let track = Track(id: 1001, name: "Love in the Harbour", artist: "The Paper Lanterns")
        private let scripts: Mutex<[[[DownloadEvent]]]>
        let subscriptions = Atomic(0)
        let listings = Atomic(0)
        private let downloaded: Bool

        let owner: DownloadOwner
        let paused = Mutex<[Int]>([])

        init(scripts: [[[DownloadEvent]]], downloadedByListing: Bool, ownedHere: Bool = false) {
            self.scripts = Mutex(scripts)
            downloaded = downloadedByListing
            owner = ownedHere ? .thisProcess : .agent(pid: 1)
        }

        func document(_ state: DownloadState) -> DownloadDocument {
            DownloadDocument(
                DownloadStatus(track: track, state: state, receivedBytes: 0, expectedBytes: nil, failure: nil, file: nil))
        }

        func start(_ trackIDs: [Int]) async throws(DownloadError) -> [DownloadDocument] { [document(.queued)] }

        func listing(_ query: ListingQuery) async throws(DownloadError) -> Listing {
            listings.add(1, ordering: .relaxed)
            var done = document(.downloaded)
            done.file = "/tmp/library/x.wav"
            return downloaded ? Listing(downloads: [], library: [done]) : Listing(downloads: [document(.paused)], library: [])
        }

        func eventBatches() async throws(DownloadError) -> AsyncStream<[DownloadEvent]> {
            subscriptions.add(1, ordering: .relaxed)
            let script = scripts.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            let (stream, feed) = AsyncStream<[DownloadEvent]>.makeStream()
            for batch in script ?? [] { feed.yield(batch) }
            if script != nil { feed.finish() }  // scripted streams end; the last one stays open
            return stream
        }

        func events() async throws(DownloadError) -> AsyncStream<DownloadEvent> { AsyncStream { $0.finish() } }
        func search(term: String, limit: Int, country: String) async throws(DownloadError) -> SearchResults {
            throw Self.unused
        }
        func pause(_ trackID: Int) async throws(DownloadError) -> DownloadDocument {
            paused.withLock { $0.append(trackID) }
            return document(.paused)
        }
        func resume(_ trackID: Int) async throws(DownloadError) -> DownloadDocument { throw Self.unused }
        func cancel(_ trackID: Int) async throws(DownloadError) { throw Self.unused }
        func remove(_ trackID: Int) async throws(DownloadError) { throw Self.unused }
        func retag(_ trackID: Int) async throws(DownloadError) -> DownloadDocument { throw Self.unused }
        func playTarget(_ trackID: Int) async throws(DownloadError) -> DownloadDocument { throw Self.unused }
        func streamTrack(_ trackID: Int, into receive: @Sendable ([UInt8]) async -> Bool) async throws(DownloadError) {
            throw Self.unused
        }
        func close() async {}

        static let unused = DownloadError(.badInput, "not used by download")
    }

    /// What the command wrote, line by line.
    final class Output: Sendable {
        let lines = Mutex<[String]>([])
    }

    /// Runs a batch of 1001 on `control` with a JSON display, its output kept in `output`.
    @discardableResult
    private func run(_ control: ScriptedControl, output: Output = Output()) async throws -> ForegroundBatch.Outcome {
        let buffer = BufferedOutput { text in output.lines.withLock { $0 += text.split(separator: "\n").map(String.init) } }
        let display = ProgressDisplay(mode: .json, columns: { nil }, write: buffer.append, warn: { _ in })
        let (interrupts, _) = AsyncStream<Void>.makeStream()
        let (inputs, forwarders) = try await ForegroundBatch.inputs(from: control, interrupts: interrupts)
        defer { forwarders.forEach { $0.cancel() } }
        return try await ForegroundBatch(
            control: control, feed: BatchFeed([1001]), display: display, output: buffer, start: control.start
        ).run(inputs)
    }

    @Test("the stream ends mid-download, the track completes meanwhile: subscribed anew, the listing finds it, success")
    func completedWhileAway() async throws {
        let control = ScriptedControl(
            scripts: [
                [[.stateChanged(trackID: 1001, state: .downloading)], [.progress(trackID: 1001, received: 10, expected: 100)]]
            ],
            downloadedByListing: true)
        let output = Output()
        #expect(try await run(control, output: output) == .finished(failed: 0))
        #expect(control.subscriptions.load(ordering: .relaxed) == 2)
        #expect(control.listings.load(ordering: .relaxed) == 1)
        // Its completion, missed on the wire, is shown from the listing as the event would have been.
        let completed = #"{"event":"completed","file":"/tmp/library/x.wav","id":1001,"state":"downloaded","v":1}"#
        #expect(output.lines.withLock { $0.last } == completed)
    }

    @Test("the stream ends and the track completes on the new one: success")
    func completedOnTheNewStream() async throws {
        let file = URL(filePath: "/tmp/library/x.wav")
        let control = ScriptedControl(
            scripts: [
                [[.progress(trackID: 1001, received: 10, expected: 100)]],
                [[.completed(trackID: 1001, file: file, warning: nil)]],
            ],
            downloadedByListing: false)
        #expect(try await run(control) == .finished(failed: 0))
        #expect(control.subscriptions.load(ordering: .relaxed) == 3)
    }

    @Test("a server that keeps ending its streams at once is given up: the command says so and fails")
    func givesUp() async throws {
        let control = ScriptedControl(scripts: Array(repeating: [], count: 10), downloadedByListing: false)
        await #expect(throws: DownloadError.self) { try await run(control) }
        // Three streams in a row that ended with nothing (the first of them the first stream).
        #expect(control.subscriptions.load(ordering: .relaxed) == 3)
    }

    @Test("Ctrl-C on a terminal: the downloads are paused, drawn as paused (no speed, no time left), the note below")
    func interruptedOnATerminal() async throws {
        let control = ScriptedControl(scripts: [], downloadedByListing: false, ownedHere: true)
        let output = Output()
        let buffer = BufferedOutput { text in output.lines.withLock { $0.append(text) } }
        let display = ProgressDisplay(mode: .terminal, columns: { 80 }, rows: { 24 }, write: buffer.append, warn: { _ in })
        let (inputs, feed) = AsyncStream<ForegroundBatch.Input>.makeStream()
        feed.yield(.events([.stateChanged(trackID: 1001, state: .downloading)]))
        feed.yield(.events([.progress(trackID: 1001, received: 400_000, expected: 1_000_000)]))
        feed.yield(.interrupt)
        let outcome = try await ForegroundBatch(
            control: control, feed: BatchFeed([1001]), display: display, output: buffer, start: control.start
        ).run(inputs)
        #expect(outcome == .interrupted)
        #expect(control.paused.withLock { $0 } == [1001])
        let text = output.lines.withLock { $0.joined() }
        #expect(text.hasSuffix("Paused. Run the same command again to resume.\n"), "\(text.suffix(300).debugDescription)")
        // The last drawing (after the last move up over the one before), then the note below it.
        let lastMove = text.range(of: "\u{1B}\\[[0-9]+F", options: [.regularExpression, .backwards])
        let note = try #require(text.range(of: "Paused. Run the same command again", options: .backwards))
        let frame = String(text[(lastMove?.upperBound ?? text.startIndex)..<note.lowerBound])
        #expect(frame.contains("Love in the Harbour — Paused"), "\(frame.debugDescription)")
        #expect(!frame.contains("left") && !frame.contains("/s"), "\(frame.debugDescription)")
    }
}
