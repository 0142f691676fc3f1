import ArgumentParser
import Foundation
import HalfTunesKit
import ITunesSearch

/// Shows downloads in the foreground until each completes or fails. Ctrl-C (or SIGTERM) calls
/// `onInterrupt`, which pauses them or leaves them to the server, and says which.
enum ForegroundDownloads {
    private enum Input: Sendable {
        case interrupt
        case event(DownloadEvent)
    }

    /// - Parameters:
    ///   - events: The download events, subscribed to before `start` runs.
    ///   - start: Starts the downloads and returns their statuses.
    ///   - onInterrupt: What to do on Ctrl-C; returns the line to show.
    /// - Throws: `ExitCode` 1 when a download failed, 130 when interrupted.
    static func run(
        events: AsyncStream<DownloadEvent>,
        json: Bool,
        start: () async throws -> [DownloadStatus],
        onInterrupt: (_ pending: Set<Int>) async -> String
    ) async throws {
        let renderer = ProgressRenderer(mode: json ? .json : (Terminal.isInteractive ? .terminal : .plain))
        // Signals and events, merged into one stream that this task alone consumes.
        let (inputs, feed) = AsyncStream<Input>.makeStream()
        let signals = await InterruptSignal.trap()
        let forwarders = [
            Task { for await _ in signals { feed.yield(.interrupt) } },
            Task {
                for await event in events { feed.yield(.event(event)) }
                feed.finish()
            },
        ]
        defer { forwarders.forEach { $0.cancel() } }

        var pending = Set<Int>()
        for status in try await start() {
            renderer.add(status)
            if status.state != .downloaded { pending.insert(status.trackID) }
        }
        // Everything was in the library already: nothing to wait for.
        if pending.isEmpty { feed.finish() }
        var failed = 0
        loop: for await input in inputs {
            if pending.isEmpty { break loop }
            switch input {
            case .interrupt:
                renderer.note(await onInterrupt(pending))
                throw ExitCode(130)
            case .event(let event):
                renderer.show(event)
                switch event {
                case .completed(let id, _), .removed(let id):
                    pending.remove(id)
                case .failed(let id, _):
                    if pending.remove(id) != nil { failed += 1 }
                case .progress, .stateChanged:
                    break
                }
                if pending.isEmpty { break loop }
            }
        }
        if failed > 0 { throw ExitCode.failure }
    }

    /// Runs downloads on a local download service, closing it at the end; Ctrl-C pauses them.
    static func runLocally(
        _ service: DownloadService, json: Bool, start: (DownloadService) async throws -> [DownloadStatus]
    ) async throws {
        do {
            try await run(events: service.events(), json: json, start: { try await start(service) }) { pending in
                for id in pending { try? await service.pause(trackID: id) }
                await service.close()
                return "Paused. Run the same command again to resume."
            }
        } catch {
            await service.close()
            throw error
        }
        await service.close()
    }
}
