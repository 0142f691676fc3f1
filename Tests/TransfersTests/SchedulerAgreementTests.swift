import DemoCatalog
import Testing

@testable import TransferEngine

@Suite("Scheduler agrees with its first version (pure)")
struct SchedulerAgreementTests {
    /// The scheduler as it was before it counted hosts in a list: host counts in a dictionary,
    /// waiting hosts in a set. Kept as the oracle of the rewrite.
    private static func reference(
        _ scheduler: Scheduler, queued: [(id: Int, host: String)], runningHosts: [String], waitingOnly: Bool
    ) -> [Int] {
        let (maxConcurrent, maxPerHost, waitingPerHost) =
            (scheduler.maxConcurrent, scheduler.maxPerHost, scheduler.waitingPerHost)
        var perHost: [String: Int] = [:]
        for host in runningHosts { perHost[host, default: 0] += 1 }
        var connected = waitingOnly ? maxConcurrent : perHost.values.reduce(0) { $0 + min($1, maxPerHost) }
        var canWait = Set(perHost.filter { $0.value >= maxPerHost && $0.value < maxPerHost + waitingPerHost }.keys)
        var admitted: [Int] = []
        for (id, host) in queued {
            if connected >= maxConcurrent, canWait.isEmpty { break }
            let count = perHost[host, default: 0]
            if count < maxPerHost {
                guard connected < maxConcurrent else { continue }
                connected += 1
                if count + 1 >= maxPerHost, waitingPerHost > 0 { canWait.insert(host) }
            } else if count < maxPerHost + waitingPerHost {
                if count + 1 == maxPerHost + waitingPerHost { canWait.remove(host) }
            } else {
                continue
            }
            admitted.append(id)
            perHost[host] = count + 1
        }
        return admitted
    }

    @Test("20,000 random queues, hosts and limits: the same transfers admitted, in the same order")
    func agrees() {
        var random = SplitMix(seed: 64)
        func below(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        let hosts = ["a.example:443", "b.example:443", "127.0.0.1:8080", "audio-ssl.itunes.apple.com:443", "c", "d"]
        var admittedSome = 0
        var waitedSome = 0
        for round in 0..<20_000 {
            let scheduler = Scheduler(maxConcurrent: 1 + below(6), maxPerHost: 1 + below(4), waitingPerHost: below(3))
            let pool = hosts.prefix(1 + below(hosts.count))
            let queued = (0..<below(40)).map { (id: $0, host: pool[below(pool.count)]) }
            let running = (0..<below(10)).map { _ in pool[below(pool.count)] }
            let waitingOnly = below(4) == 0
            let expected = Self.reference(scheduler, queued: queued, runningHosts: running, waitingOnly: waitingOnly)
            let got = scheduler.admit(queued: queued, runningHosts: running, waitingOnly: waitingOnly)
            #expect(got == expected, "round \(round): \(scheduler), running \(running), waiting only \(waitingOnly)")
            if !expected.isEmpty { admittedSome += 1 }
            if waitingOnly, !expected.isEmpty { waitedSome += 1 }
        }
        // The rounds reach both kinds of admission, not only empty answers.
        #expect(admittedSome > 5_000 && waitedSome > 100, "\(admittedSome) rounds admitted, \(waitedSome) while full")
    }
}
