import DemoCatalog
import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

@testable import TransferEngine

/// What the HTTP client gets to log with: the engine's logger when it shows debug messages (so
/// AsyncHTTPClient's own messages reach it), a silent one otherwise (its per-request metadata
/// costs even when nothing is logged).
@Suite("The HTTP client's logging", .timeLimit(.minutes(1)))
struct ClientLoggingTests {
    /// Keeps every message a logger lets through, with its metadata.
    final class Recorder: Sendable {
        let messages = Mutex<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>([])

        func logger(_ level: Logger.Level) -> Logger {
            var logger = Logger(label: "test.transfers") { _ in Handler(recorder: self) }
            logger.logLevel = level
            return logger
        }

        struct Handler: LogHandler {
            let recorder: Recorder
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
                recorder.messages.withLock { $0.append((event.level, "\(event.message)", merged)) }
            }
        }
    }

    /// Downloads one preview through a session whose logger shows `level` and up.
    private func download(loggingAt level: Logger.Level) async throws -> Recorder {
        let recorder = Recorder()
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let session = try await TransferSession.open(
                    identifier: "test", directory: folder.appendingPathComponent("session"),
                    logger: recorder.logger(level))
                let id = try await session.start(
                    url: previewURL(url, 1001), destination: folder.appendingPathComponent("song.wav"))
                #expect(try await session.wait(for: id).state == .completed)
                await session.close()
            }
        }
        return recorder
    }

    @Test("at debug level, AsyncHTTPClient's own messages reach the engine's logger, tagged with its request ids")
    func debugReachesClient() async throws {
        let messages = try await download(loggingAt: .debug).messages.withLock { $0 }
        #expect(messages.contains { $0.metadata["ahc-request-id"] != nil })
    }

    @Test("at info level the client logs through a silent logger; at debug through the engine's")
    func infoSilencesClient() {
        let recorder = Recorder()
        #expect(TransferRunner.clientLogger(for: recorder.logger(.info)).handler is SwiftLogNoOpLogHandler)
        #expect(TransferRunner.clientLogger(for: recorder.logger(.warning)).handler is SwiftLogNoOpLogHandler)
        let debug = TransferRunner.clientLogger(for: recorder.logger(.debug))
        #expect(debug.handler is Recorder.Handler)
        #expect(debug.logLevel == .debug)
    }
}
