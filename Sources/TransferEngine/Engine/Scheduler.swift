/// Chooses which queued transfers start, keeping to an overall limit and a per-host limit, in
/// the order they were queued. Pure.
public struct Scheduler: Sendable, Hashable {
    /// Transfers running at once, overall.
    public var maxConcurrent: Int
    /// Transfers running at once against one host.
    public var maxPerHost: Int

    /// Creates a scheduler.
    public init(maxConcurrent: Int = 4, maxPerHost: Int = 4) {
        self.maxConcurrent = max(1, maxConcurrent)
        self.maxPerHost = max(1, maxPerHost)
    }

    /// The queued transfers to start now.
    ///
    /// - Parameters:
    ///   - queued: Waiting transfers and their hosts, oldest first. Read only as far as needed:
    ///     a lazy sequence over a long queue costs what the few admitted do.
    ///   - runningHosts: The host of every running transfer.
    public func admit<ID, Queue: Sequence<(id: ID, host: String)>>(queued: Queue, runningHosts: [String]) -> [ID] {
        var running = runningHosts.count
        var perHost: [String: Int] = [:]
        for host in runningHosts { perHost[host, default: 0] += 1 }
        var admitted: [ID] = []
        for (id, host) in queued {
            guard running < maxConcurrent else { break }
            // A host at its limit does not hold up transfers from other hosts behind it.
            guard perHost[host, default: 0] < maxPerHost else { continue }
            admitted.append(id)
            running += 1
            perHost[host, default: 0] += 1
        }
        return admitted
    }
}
