/// Chooses which queued transfers start, keeping to an overall limit and a per-host limit, in
/// the order they were queued. Pure.
///
/// A host's limit is also the number of connections the HTTP client keeps to it. With
/// ``waitingPerHost`` above zero, a host whose connections are all busy may get that many more
/// transfers: their requests wait in the client for the first of the host's connections to free,
/// and take it at once, instead of the connection idling while the session picks the next
/// transfer. They never open a connection of their own, so no more transfers than the limits
/// allow are ever receiving.
public struct Scheduler: Sendable, Hashable {
    /// Transfers running at once, overall.
    public var maxConcurrent: Int
    /// Transfers running at once against one host.
    public var maxPerHost: Int
    /// Transfers whose requests may wait, per host, for one of its busy connections (0: none).
    public var waitingPerHost: Int

    /// Creates a scheduler.
    public init(maxConcurrent: Int = 4, maxPerHost: Int = 4, waitingPerHost: Int = 0) {
        self.maxConcurrent = max(1, maxConcurrent)
        self.maxPerHost = max(1, maxPerHost)
        self.waitingPerHost = max(0, waitingPerHost)
    }

    /// The queued transfers to start now.
    ///
    /// - Parameters:
    ///   - queued: Waiting transfers and their hosts, oldest first. Read only as far as needed:
    ///     a lazy sequence over a long queue costs what the few admitted do.
    ///   - runningHosts: The host of every running transfer (those waiting for a connection too).
    ///   - waitingOnly: Whether only transfers that wait for a busy connection may start (the
    ///     caller's other work takes the places of the overall limit for now).
    public func admit<ID, Queue: Sequence<(id: ID, host: String)>>(
        queued: Queue, runningHosts: [String], waitingOnly: Bool = false
    ) -> [ID] {
        admitted(queued: queued, runningHosts: runningHosts, waitingOnly: waitingOnly).map(\.id)
    }

    /// ``admit(queued:runningHosts:waitingOnly:)``, each admitted transfer with its host (the
    /// session starts it on that host without working the host out of its URL again).
    func admitted<ID, Queue: Sequence<(id: ID, host: String)>>(
        queued: Queue, runningHosts: [String], waitingOnly: Bool = false
    ) -> [(id: ID, host: String)] {
        var perHost: [String: Int] = [:]
        for host in runningHosts { perHost[host, default: 0] += 1 }
        // Transfers with a connection: a host's beyond its limit are waiting for one of them.
        var connected = waitingOnly ? maxConcurrent : perHost.values.reduce(0) { $0 + min($1, maxPerHost) }
        // Hosts whose connections are all busy and where another request may still wait.
        var canWait = Set(perHost.filter { isFull($0.value) && $0.value < maxPerHost + waitingPerHost }.keys)
        var admitted: [(id: ID, host: String)] = []
        for (id, host) in queued {
            // Nothing more can start, nor wait: the rest of the queue need not be read.
            if connected >= maxConcurrent, canWait.isEmpty { break }
            let count = perHost[host, default: 0]
            if count < maxPerHost {
                guard connected < maxConcurrent else { continue }
                connected += 1
                if isFull(count + 1), waitingPerHost > 0 { canWait.insert(host) }
            } else if count < maxPerHost + waitingPerHost {
                if count + 1 == maxPerHost + waitingPerHost { canWait.remove(host) }
            } else {
                // A host at its limit does not hold up transfers from other hosts behind it.
                continue
            }
            admitted.append((id, host))
            perHost[host] = count + 1
        }
        return admitted
    }

    private func isFull(_ running: Int) -> Bool { running >= maxPerHost }
}
