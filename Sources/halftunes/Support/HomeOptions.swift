import ArgumentParser
import HalfTunesClient
import HalfTunesKit
import HalfTunesWeb
import TransferEngine

/// `--home DIR`, shared by every command that touches downloads or the library.
struct HomeOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Where HalfTunes keeps its data (default: $HALFTUNES_HOME, else $XDG_DATA_HOME/halftunes, else ~/.local/share/halftunes).",
            valueName: "dir"))
    var home: String?

    var resolved: HalfTunesHome { HalfTunesHome.resolve(explicit: home) }

    /// Runs `body` with the command's one ``DownloadControl`` (see ``control(downloading:catalog:tagging:durability:bandwidthLimit:agentArguments:)``),
    /// closed afterwards whatever happens.
    func withControl<T>(
        downloading: Bool, catalog: CatalogOptions? = nil, tagging: TaggingOptions = TaggingOptions(),
        durability: Durability = .powerLoss, bandwidthLimit: Int? = nil, _ body: (any DownloadControl) async throws -> T
    ) async throws -> T {
        let (control, _) = try await control(
            downloading: downloading, catalog: catalog, tagging: tagging, durability: durability,
            bandwidthLimit: bandwidthLimit)
        return try await control.closing { try await body($0) }
    }

    /// The command's one ``DownloadControl``: the running agent's when there is one (commands
    /// never open the session beside it), else — given
    /// `agentArguments`, unless `HALFTUNES_AGENT=0` — an agent started now with them, else this
    /// process's own, opened when first needed.
    ///
    /// - Parameters:
    ///   - downloading: Whether downloads may run in this process (`download`, `resume`);
    ///     `false` for commands that only look or edit.
    ///   - tagging: Whether this process's downloads get their tags (a running owner's are as it was started).
    ///   - durability: What this process's downloads survive.
    ///   - bandwidthLimit: This process's cap on all its downloads together, bytes a second.
    ///   - agentArguments: The options of an agent this command may start (`nil`: it starts none).
    /// - Returns: The control, and whether it is an agent started now (with `agentArguments`).
    func control(
        downloading: Bool, catalog: CatalogOptions? = nil, tagging: TaggingOptions = TaggingOptions(),
        durability: Durability = .powerLoss, bandwidthLimit: Int? = nil, agentArguments: [String]? = nil,
        lookAhead: [Int] = []
    ) async throws -> (any DownloadControl, startedAgent: Bool) {
        if let problem = DownloadError.homeProblem(resolved) { throw problem }
        do {
            if let (remote, started) = try await remoteControl(
                agentArguments: AgentLauncher.isEnabled() ? agentArguments : nil, catalog: catalog, lookAhead: lookAhead)
            {
                return (remote, started)
            }
        } catch let error as DownloadError where error.code == .forbidden {
            // Another user's agent: their home is not this command's to open either.
            throw error
        } catch {
            // A safe way on: the downloads run here, as with HALFTUNES_AGENT=0.
            Terminal.warn("\(error); downloading in this process (they stop when it ends)")
        }
        let home = resolved
        let local = LocalDownloadControl.forCommand(
            home: home, catalog: try CatalogOptions.configuration(of: catalog),
            downloading: downloading, tagging: tagging, durability: durability, bandwidthLimit: bandwidthLimit)
        return (local, false)
    }

    /// The running agent's control, else — given `agentArguments`, or when the home's journal
    /// holds downloads an agent that ended left unfinished — an agent's started now; `nil` when
    /// none runs and none is to be started.
    ///
    /// - Throws: ``DownloadError``: `.forbidden` when another user's agent listens on the
    ///   home's socket (this command then touches neither it nor the home); else when the agent
    ///   cannot start.
    func remoteControl(agentArguments: [String]?, catalog: CatalogOptions? = nil, lookAhead: [Int] = []) async throws -> (
        RemoteDownloadControl, startedAgent: Bool
    )? {
        let home = resolved
        let agent = AgentAddress.resolve(for: home)
        switch agent.probe() {
        case .running(let pid):
            return (RemoteDownloadControl(agent: agent, pid: pid, revive: reviver(agent, catalog: catalog)), false)
        case .foreign(let uid): throw Self.foreign(agent, uid: uid)
        case .absent, .stale: break
        }
        // No agent can keep a home it cannot write (its journal, its log): this process looks,
        // and refuses what would write in one line.
        if home.isReadOnly { return nil }
        // A command that starts no agent still brings one back for downloads a dead one left
        // unfinished (killed, say): they go on, and the command acts through it.
        let orphaned = agentArguments == nil && AgentLauncher.isEnabled() ? DownloadService.orphanedDownloads(home: home) : 0
        guard let arguments = agentArguments ?? (orphaned > 0 ? catalog?.forwarded ?? [] : nil) else { return nil }
        let (pid, started) = try await AgentLauncher.ensureRunning(
            home: home, address: agent, arguments: arguments, lookAhead: lookAhead)
        if started, agentArguments == nil {
            Terminal.warn(
                "started the HalfTunes agent (process \(pid)): it resumes \(orphaned) unfinished download\(orphaned == 1 ? "" : "s")"
            )
        }
        return (RemoteDownloadControl(agent: agent, pid: pid, revive: reviver(agent, catalog: catalog)), started)
    }

    /// Starts another agent when the command's has ended (killed, crashed) while it follows its
    /// downloads: they go on in the new one, and the command with them; said in one line.
    func reviver(_ agent: AgentAddress, catalog: CatalogOptions?) -> (@Sendable () async throws(DownloadError) -> Void)? {
        guard AgentLauncher.isEnabled() else { return nil }
        let home = resolved
        let arguments = catalog?.forwarded ?? []
        return { () async throws(DownloadError) in
            let pid: Int32
            do { pid = try await AgentLauncher.ensureRunning(home: home, address: agent, arguments: arguments).pid } catch {
                throw DownloadError(error)
            }
            Terminal.warn("the HalfTunes agent ended; started another (process \(pid)), which goes on with the downloads")
        }
    }

    /// The error for a home whose agent is another user's.
    static func foreign(_ agent: AgentAddress, uid: UInt32) -> DownloadError {
        DownloadError(
            .forbidden,
            "the agent on \(agent.socket.path) is another user's (uid \(uid)), and so is this home: "
                + "use your own (--home, HALFTUNES_HOME, XDG_RUNTIME_DIR)")
    }
}
