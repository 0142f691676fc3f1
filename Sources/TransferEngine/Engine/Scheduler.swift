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
        // The hosts in play are few (the running transfers' and the admitted ones', never more
        // than the limits allow), so they are counted in a list compared by text: no hashing of
        // host names, several a queued transfer, at every change of the session.
        var perHost = HostCounts()
        for host in runningHosts { perHost.add(host) }
        // Transfers with a connection: a host's beyond its limit are waiting for one of them.
        var connected = waitingOnly ? maxConcurrent : perHost.counts.reduce(0) { $0 + min($1, maxPerHost) }
        // Hosts whose connections are all busy and where another request may still wait.
        var canWait = perHost.counts.count { isFull($0) && $0 < maxPerHost + waitingPerHost }
        var admitted: [(id: ID, host: String)] = []
        for (id, host) in queued {
            // Nothing more can start, nor wait: the rest of the queue need not be read.
            if connected >= maxConcurrent, canWait == 0 { break }
            let slot = perHost.slot(of: host)
            let count = slot.map { perHost.counts[$0] } ?? 0
            if count < maxPerHost {
                guard connected < maxConcurrent else { continue }
                connected += 1
                if isFull(count + 1), waitingPerHost > 0 { canWait += 1 }
            } else if count < maxPerHost + waitingPerHost {
                if count + 1 == maxPerHost + waitingPerHost { canWait -= 1 }
            } else {
                // A host at its limit does not hold up transfers from other hosts behind it.
                continue
            }
            admitted.append((id, host))
            if let slot { perHost.counts[slot] += 1 } else { perHost.add(host) }
        }
        return admitted
    }

    private func isFull(_ running: Int) -> Bool { running >= maxPerHost }
}

/// How many transfers each host has, for the few hosts of one scheduling decision.
private struct HostCounts {
    var hosts: [String] = []
    var counts: [Int] = []

    func slot(of host: String) -> Int? { hosts.firstIndex(of: host) }

    mutating func add(_ host: String) {
        if let slot = slot(of: host) {
            counts[slot] += 1
        } else {
            hosts.append(host)
            counts.append(1)
        }
    }
}
