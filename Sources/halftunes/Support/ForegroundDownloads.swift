import ArgumentParser
import Foundation
import HalfTunesKit
import ITunesSearch

/// Runs downloads in the foreground until each completes or fails; Ctrl-C pauses them (the
/// partial data is kept, and the same command resumes).
enum ForegroundDownloads {
    private enum Input: Sendable {
        case interrupt
        case event(DownloadEvent)
    }

    /// - Returns: Normally; throws `ExitCode` 1 when a download failed, 130 when interrupted.
    static func run(
        service: DownloadService, start: () async throws -> [DownloadStatus], json: Bool
    ) async throws {
        let renderer = ProgressRenderer(mode: json ? .json : (Terminal.isInteractive ? .terminal : .plain))
        // Signals and events, merged into one stream that this task alone consumes.
        let (inputs, feed) = AsyncStream<Input>.makeStream()
        let signals = await InterruptSignal.trap()
        let events = service.events()
        let forwarders = [
            Task { for await _ in signals { feed.yield(.interrupt) } },
            Task {
                for await event in events { feed.yield(.event(event)) }
                feed.finish()
            },
        ]
        defer { forwarders.forEach { $0.cancel() } }

        let statuses = try await start()
        var pending = Set<Int>()
        for status in statuses {
            renderer.add(status)
            if status.state != .downloaded { pending.insert(status.trackID) }
        }
        var failed = 0
        var interrupted = false
        if !pending.isEmpty {
            loop: for await input in inputs {
                switch input {
                case .interrupt:
                    interrupted = true
                    break loop
                case .event(let event):
                    renderer.show(event)
                    switch event {
                    case .completed(let id, _), .removed(let id):
                        pending.remove(id)
                    case .failed(let id, _):
                        pending.remove(id)
                        failed += 1
                    case .progress, .stateChanged:
                        break
                    }
                    if pending.isEmpty { break loop }
                }
            }
        }
        let outcome = !interrupted
        if !outcome {
            for id in pending { try? await service.pause(trackID: id) }
            await service.close()
            renderer.note("Paused. Run the same command again to resume.")
            throw ExitCode(130)
        }
        await service.close()
        if failed > 0 { throw ExitCode.failure }
    }
}
