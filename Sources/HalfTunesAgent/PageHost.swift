import Foundation
import HalfTunesKit
import HalfTunesWeb
import Hummingbird
import ITunesSearch
import Logging
import ServiceLifecycle

/// The page's ports of the process that owns the downloads (the agent): the tutorial's screen,
/// its API and events, served straight from the downloads — no relay between the tabs and their
/// owner. A `serve` process asks for one over the agent's socket and holds it for its life;
/// `demo`, which hosts the agent, opens one for its own.
public struct PageHost: Sendable {
    let service: DownloadService
    let catalog: ITunesCatalog
    let logger: Logger

    /// The page on `request`'s address, listening once this returns.
    ///
    /// - Throws: ``DownloadError`` saying why it cannot listen there (the port in use, say).
    func open(_ request: PageRequest) async throws -> OpenPage {
        let web = try WebApp(service: service, catalog: catalog, token: request.token, logger: logger)
        let (ready, readyFeed) = AsyncStream<URL>.makeStream()
        let app = web.application(host: request.host, port: request.port) { url in
            readyFeed.yield(url)
            readyFeed.finish()
        }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let run = Task<(any Error)?, Never> {
            defer { readyFeed.finish() }
            do { try await group.run() } catch { return error }
            return nil
        }
        var listening = ready.makeAsyncIterator()
        guard let url = await listening.next() else {
            let error = await run.value
            throw error.flatMap { ListenFailure.error($0, host: request.host, port: request.port) ?? $0 }
                ?? DownloadError(.internalError, "the page on \(request.host):\(request.port) stopped before it listened")
        }
        return OpenPage(url: url, group: group, run: run)
    }
}

/// A page being served; ``close()`` stops it (its event streams end, its port is let go).
final class OpenPage: Sendable {
    /// Where it answers.
    let url: URL
    private let group: ServiceGroup
    private let run: Task<(any Error)?, Never>

    init(url: URL, group: ServiceGroup, run: Task<(any Error)?, Never>) {
        self.url = url
        self.group = group
        self.run = run
    }

    /// Stops the page and waits until its port is closed.
    func close() async {
        await group.triggerGracefulShutdown()
        _ = await run.value
    }
}
