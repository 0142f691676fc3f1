import BenchSupport
import Foundation
import Logging
import Transfers

/// `transfer-bench URL-LIST OUTPUT-DIR [--concurrency N] [--resumable]`: downloads every URL in the
/// list (one per line) with the HalfTunes transfer engine, then prints one JSON line: bytes, seconds,
/// peak RSS. With `--resumable` the same engine is driven through ResumableURLSession, the
/// URLSession-shaped layer, as an app ported from Apple's URLSession would.
@main
struct TransferBench {
    static func main() async throws {
        let arguments = try BenchArguments(
            usage: "transfer-bench URL-LIST OUTPUT-DIR [--concurrency N] [--pause-at F] [--no-flush] [--resumable]",
            optionsWithValues: ["--pause-at"])
        let (urls, output, concurrency) = (arguments.urls, arguments.output, arguments.concurrency)
        // --pause-at F: pause the (first) download once a fraction F has arrived, then resume it;
        // prints the bytes on disk at the pause, so the re-fetch can be counted from the server log.
        let pauseAt = arguments.value("--pause-at").flatMap(Double.init)
        // --no-flush: Durability.processCrash (no fsync), the durability curl and aria2c give.
        let durability = arguments.flag("--no-flush") ? Durability.processCrash : .powerLoss
        let resumable = arguments.flag("--resumable")
        if resumable {
            let started = ContinuousClock.now
            // Blocks the main thread, as a ported command-line app does; the session works on other threads.
            let (bytes, failed) = ResumableBench.run(urls: urls, output: output, concurrency: concurrency, durability: durability)
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(
                #"{"bytes":\#(bytes),"seconds":\#(seconds),"failed":\#(failed),"peakRSSKiB":\#(peakRSS()),"pausedWithBytes":-1}"#)
            return
        }
        var logger = Logger(label: "bench")
        logger.logLevel = .error
        let state = output.appendingPathComponent(".bench-session")
        let session = try await TransferSession.open(
            identifier: "bench", directory: state,
            configuration: TransferSessionConfiguration(
                maxConcurrentTransfers: concurrency, maxTransfersPerHost: concurrency, durability: durability),
            logger: logger)
        // Events are only read to pause; a subscriber no one reads would still be offered each one.
        let events = pauseAt == nil ? nil : session.events()
        let started = ContinuousClock.now
        // After a kill -9, the session resumes what it had: wait for those instead of starting again.
        let unfinished = Dictionary(
            await session.transfers().filter { !$0.state.isFinal }.map { ($0.destination.path, $0.id) },
            uniquingKeysWith: { a, _ in a })
        // The rest start together, as an app starts a batch: one journal commit for all.
        let destinations = urls.enumerated().map { index, url in
            output.appendingPathComponent("\(index)-\(url.lastPathComponent)")
        }
        let fresh = zip(urls, destinations).filter { unfinished[$0.1.path] == nil }
        let freshIDs = try await session.start(fresh.map { TransferRequest(url: $0.0, destination: $0.1) })
        var byDestination = Dictionary(uniqueKeysWithValues: zip(fresh.map(\.1.path), freshIDs))
        byDestination.merge(unfinished) { new, _ in new }
        let ids = destinations.map { byDestination[$0.path]! }
        var pausedWith: Int64 = -1
        if let pauseAt, let events, let first = ids.first {
            for await event in events {
                if case .progress(first, let received, let expected?) = event, Double(received) >= pauseAt * Double(expected) {
                    break
                }
                if case .completed(first, _) = event { break }
            }
            pausedWith = try await session.pause(first).bytesOnDisk
            try await session.resume(first)
        }
        var bytes: Int64 = 0
        var failed = 0
        for id in ids {
            let done = try await session.wait(for: id)
            if done.state == .completed {
                bytes += done.receivedBytes
            } else {
                failed += 1
                FileHandle.standardError.write(Data("failed: \(done.url): \(done.failure?.message ?? "\(done.state)")\n".utf8))
            }
        }
        let elapsed = ContinuousClock.now - started
        await session.close()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            #"{"bytes":\#(bytes),"seconds":\#(seconds),"failed":\#(failed),"peakRSSKiB":\#(peakRSS()),"pausedWithBytes":\#(pausedWith)}"#
        )
    }
}
