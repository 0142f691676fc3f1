import Foundation
import HalfTunesKit
import HalfTunesWeb
import ITunesSearch
import Logging
import NetworkBasics
import ServiceLifecycle
import SystemBasics
import TransferEngine

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a home's transfer agent: its downloads and the API on its Unix socket (``AgentAddress``),
/// until SIGINT or SIGTERM, or until it has been idle (no client, no download queued or running)
/// for `idleExit`. What `halftunes agent` is.
public enum AgentServer {
    /// Serves `home`'s downloads on `address`.
    ///
    /// - Parameters:
    ///   - idleExit: How long the agent stays up with nothing to do (`nil`: until a signal).
    ///   - durability: What its downloads' files survive.
    ///   - catalogConfiguration: The catalog lookups go to; previews and covers are fetched
    ///     trusting what it trusts, through its proxies.
    ///   - page: A page to serve for this process's life (`demo`, or `serve` hosting the agent);
    ///     others are opened by `serve` processes over the socket (``PageHost``).
    ///   - lookAhead: Ids to look up in the catalog at once, while the home opens: those of the
    ///     batch whose command started the agent (``LookAhead``).
    ///   - say: Where lines for the user go.
    ///   - ready: Called once the socket listens.
    /// - Throws: ``DownloadError``: `.conflict` when an agent already runs for the home (naming
    ///   its process) or another process owns the downloads; `.badInput` for a socket folder that
    ///   is not the user's alone.
    public static func run(
        home: HalfTunesHome, address: AgentAddress, idleExit: Duration?, tagging: TaggingOptions = TaggingOptions(),
        durability: Durability = .powerLoss, bandwidthLimit: Int? = nil, catalogConfiguration: CatalogConfiguration,
        page: PageRequest? = nil, lookAhead: [Int] = [], say: @escaping @Sendable (String) -> Void,
        ready: @escaping @Sendable () -> Void = {}
    ) async throws {
        // Connections, downloads and files share the descriptors: the most the system allows,
        // and the connection cap below that (ConnectionLimits).
        DescriptorLimit.raiseToHard()
        // Socket activation: systemd bound the socket (halftunes-agent.socket) and keeps it;
        // otherwise the agent binds it, and removes it when it ends.
        let inherited: Int32?
        do { inherited = try SocketActivation.listener(at: address.socket.path) } catch {
            throw DownloadError(.badInput, "\(error)")
        }
        try address.prepareFolder()
        // One that answers already (or a socket systemd listens on for one, which the probe
        // starts): this one is not needed.
        if inherited == nil, case .running(let pid) = address.probe() { throw AgentLock.alreadyRunning(address, pid: pid) }
        StartBarrier.waitIfAsked()
        let lock = try AgentLock(address)
        defer { lock.release() }
        if inherited == nil { address.removeStaleSocket() }
        let logger = Logger(label: "halftunes.agent")
        var configuration = sessionConfiguration(
            trustRoots: catalogConfiguration.trustRoots, proxies: catalogConfiguration.proxies, durability: durability,
            bandwidthLimit: bandwidthLimit)
        // The lookups and the downloads share clients, made before the home opens: a lookup and
        // the previews it finds share a connection, the look-ahead's too.
        let clients = configuration.makeHTTPClients()
        configuration.httpClients = clients
        let catalog = try ITunesCatalog(
            configuration: catalogConfiguration, httpClient: clients.client(for: catalogConfiguration.baseURL),
            logger: Logger(label: "halftunes.catalog"))
        let ahead = lookAhead.isEmpty ? nil : LookAhead(ids: lookAhead, catalog: catalog)
        let service = try await DownloadService.open(
            home: home, configuration: configuration, tagging: tagging, logger: Logger(label: "halftunes.downloads"))
        let watch = IdleWatch(idle: idleExit ?? .seconds(1))
        await service.setRefresher { id in try? await catalog.lookupAfresh(id: id) }
        let web = try WebApp(service: service, catalog: catalog, lookAhead: ahead, logger: logger) { watch.changed() }
        let socket = address.socket.path
        let pages = PageHost(service: service, catalog: catalog, logger: logger)
        let listener = web.agentListener(
            socket: socket, inherited: inherited, home: home.root.path, pages: pages
        ) {
            defer { ready() }
            guard page == nil else { return }
            let handed = inherited == nil ? "" : " (the socket systemd handed it)"
            say("HalfTunes agent (process \(getpid())) listening on \(socket) for \(home.root.path)\(handed)")
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: DownloadsLifecycle(service)), .init(service: listener),
        ]
        if let page {
            // A page that cannot listen (its port in use, say) ends the process with its reason.
            services.append(
                .init(
                    service: HostedPage(pages: pages, request: page, say: say),
                    failureTerminationBehavior: .gracefullyShutdownGroup))
        }
        if idleExit != nil {
            services.append(
                .init(
                    service: IdleExit(watch: watch, web: web, downloads: service),
                    successTerminationBehavior: .gracefullyShutdownGroup))
        }
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        // systemd's socket stays, to start the next agent on the next connection.
        defer { if inherited == nil { unlink(socket) } }
        do { try await group.run() } catch {
            await service.close()
            throw error
        }
    }

    /// The page of the process hosting the agent, open until it shuts down.
    struct HostedPage: Service {
        let pages: PageHost
        let request: PageRequest
        let say: @Sendable (String) -> Void

        func run() async throws {
            let page = try await pages.open(request)
            say("HalfTunes is running at \(page.url)/ — open it in a browser. Ctrl-C stops it.")
            try? await gracefulShutdown()
            await page.close()
        }
    }

    /// Ends the agent once it is idle: no client connected, no download queued or running.
    struct IdleExit: Service {
        let watch: IdleWatch
        let web: WebApp
        let downloads: DownloadService

        func run() async throws {
            let events = Task { [watch, downloads] in
                for await event in downloads.events() {
                    if case .progress = event { continue }
                    watch.changed()
                }
            }
            defer { events.cancel() }
            let (web, downloads) = (web, downloads)
            await cancelWhenGracefulShutdown {
                await watch.wait {
                    guard web.openConnections == 0 else { return false }
                    return await !downloads.downloads().contains { $0.state == .queued || $0.state == .downloading }
                }
            }
        }
    }
}

/// The lock the running agent of a home holds (`flock`, released by the kernel when it dies).
struct AgentLock: ~Copyable {
    private let fd: Int32

    init(_ address: AgentAddress) throws(DownloadError) {
        fd = open(address.lockFile.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw DownloadError(.internalError, "cannot open \(address.lockFile.path): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            let pid: Int32? = if case .running(let pid) = address.probe() { pid } else { nil }
            throw Self.alreadyRunning(address, pid: pid)
        }
    }

    /// The error of a second agent for a home.
    static func alreadyRunning(_ address: AgentAddress, pid: Int32?) -> DownloadError {
        DownloadError(
            .conflict, "an agent already runs for this home\(pid.map { " (process \($0))" } ?? ""), on \(address.socket.path)")
    }

    func release() { close(fd) }
}
