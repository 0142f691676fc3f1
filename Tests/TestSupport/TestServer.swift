import DemoCatalog
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// Runs a Hummingbird router on 127.0.0.1 with a free port for the duration of `body`.
public func withTestServer<T>(
    _ router: Router<BasicRequestContext>,
    _ body: (URL) async throws -> T
) async throws -> T {
    let responder = router.buildResponder()
    return try await withRunningServer(
        { onReady in
            Application(
                responder: responder,
                configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { channel in
                    await onReady(URL(string: "http://127.0.0.1:\(channel.localAddress!.port!)")!)
                },
                logger: silentLogger("test-server"))
        },
        body)
}

/// Runs a DemoCatalog on 127.0.0.1 with a free port for the duration of `body`.
public func withDemoCatalog<T>(
    _ catalog: DemoCatalog = DemoCatalog(logger: silentLogger("demo-catalog")),
    _ body: (DemoCatalog, URL) async throws -> T
) async throws -> T {
    try await withRunningServer(
        { onReady in catalog.application(port: 0, onReady: onReady) },
        { url in try await body(catalog, url) })
}

/// Starts a server, waits until it reports its URL, runs `body`, then shuts the server down
/// gracefully (as SIGTERM would) and waits for it to stop.
///
/// The server runs in a task of its own, never cancelled with the test's: cancelled at once, it
/// could drop a connection it had accepted but not taken up, which NIO traps on (the process
/// ends). When `body` throws, a server whose answers hang (a held body) is cancelled after a grace,
/// once its port is closed.
public func withRunningServer<T>(
    _ makeServer: (@escaping @Sendable (URL) async -> Void) -> some Service,
    _ body: (URL) async throws -> T
) async throws -> T {
    let (urls, continuation) = AsyncStream<URL>.makeStream()
    let server = makeServer { url in continuation.yield(url) }
    let group = ServiceGroup(configuration: .init(services: [server], logger: quietLogger("test-services")))
    let running = Task {
        defer { continuation.finish() }
        try await group.run()
    }
    var iterator = urls.makeAsyncIterator()
    guard let url = await iterator.next() else {
        await stop(group, running)
        try await running.value
        throw TestServerError.didNotStart
    }
    do {
        let result = try await body(url)
        await group.triggerGracefulShutdown()
        try await running.value
        return result
    } catch {
        await stop(group, running)
        throw error
    }
}

/// Shuts `group` down gracefully; cancels it if it has not stopped within 5 s.
private func stop(_ group: ServiceGroup, _ running: Task<Void, any Error>) async {
    await group.triggerGracefulShutdown()
    let grace = Task {
        try await Task.sleep(for: .seconds(5))
        running.cancel()
    }
    _ = try? await running.value
    grace.cancel()
}

enum TestServerError: Error { case didNotStart }

/// A logger that only reports errors, so test output stays readable.
public func quietLogger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = .error
    return logger
}

/// A logger for test servers, whose shutdown chatter (connections cut at the end of a test) is expected.
public func silentLogger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = .critical
    return logger
}

/// Runs a catalog that answers every Search and Lookup call as the live iTunes API does past its
/// rate limit — 403 with an empty body — for the duration of `body`.
public func withRateLimitedCatalog<T>(_ body: (URL) async throws -> T) async throws -> T {
    let router = Router()
    router.get("/search") { _, _ in Response(status: .forbidden) }
    router.get("/lookup") { _, _ in Response(status: .forbidden) }
    return try await withTestServer(router, body)
}
