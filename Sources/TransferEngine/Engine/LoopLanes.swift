/// Which of the engine's HTTP clients — one per event loop — a transfer's requests go through.
///
/// One client over several event loops lets a request's task sit on one loop and its connection
/// on another; then the pieces of a response are handed from the connection's loop to the
/// task's, a wake-up of another thread each. A client per loop keeps both on one loop (event
/// loops woken 3,179 → 2,544 times for 2,000 small files), and the loops still parse their
/// connections' responses in parallel.
///
/// The session's limit of connections per host is split between the lanes (``limits``, each
/// client's own limit per host), and a transfer takes, for its host, the lane with the smallest
/// share of its limit in use (the lowest on a tie): so the lanes never hold more connections to a
/// host than the session allows, and a transfer that waits for a busy connection (the host's
/// lanes all full) waits in a lane whose connections are busy, opening none. It gives the lane back
/// once its connection is free.
struct LoopLanes {
    /// Each lane's share of the connections allowed per host; together, the session's limit.
    let limits: [Int]
    /// Transfers holding a lane, by host: how many in each lane.
    private var held: [String: [Int]] = [:]
    private var lanes: [TransferID: (lane: Int, host: String)] = [:]

    /// Lanes for `loops` event loops and `perHost` connections per host: as many lanes as both
    /// allow (at least one), the connections split between them as evenly as they go.
    init(loops: Int, perHost: Int) {
        let perHost = max(perHost, 1)
        let count = max(1, min(loops, perHost))
        limits = (0..<count).map { perHost / count + ($0 < perHost % count ? 1 : 0) }
    }

    /// How many transfers to `host` hold each lane.
    func held(_ host: String) -> [Int] { held[host] ?? Array(repeating: 0, count: limits.count) }

    /// The lane of a transfer that connects to `host` now: its own if it holds one, else the one
    /// with the smallest share of its limit in use for that host.
    mutating func take(_ id: TransferID, host: String) -> Int {
        if let lane = lanes[id]?.lane { return lane }
        var counts = held(host)
        var lane = 0
        for index in limits.indices where counts[index] * limits[lane] < counts[lane] * limits[index] { lane = index }
        counts[lane] += 1
        held[host] = counts
        lanes[id] = (lane, host)
        return lane
    }

    /// Gives a transfer's lane back (nothing when it holds none).
    mutating func release(_ id: TransferID) {
        guard let (lane, host) = lanes.removeValue(forKey: id), var counts = held[host] else { return }
        counts[lane] -= 1
        held[host] = counts.allSatisfy { $0 == 0 } ? nil : counts
    }
}
