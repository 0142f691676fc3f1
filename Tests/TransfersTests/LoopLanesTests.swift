import Testing

@testable import TransferEngine

/// Which HTTP client (event loop) each transfer connects through (pure: no I/O).
@Suite("Loop lanes")
struct LoopLanesTests {
    func id(_ n: Int) -> TransferID { TransferID(rawValue: "t\(n)") }

    @Test("the connections per host are split between the lanes, never more in all; no more lanes than connections")
    func limits() {
        #expect(LoopLanes(loops: 2, perHost: 4).limits == [2, 2])
        #expect(LoopLanes(loops: 2, perHost: 3).limits == [2, 1])
        #expect(LoopLanes(loops: 2, perHost: 1).limits == [1])
        #expect(LoopLanes(loops: 4, perHost: 6).limits == [2, 2, 1, 1])
        #expect(LoopLanes(loops: 0, perHost: 4).limits == [4])
        #expect(LoopLanes(loops: 2, perHost: 0).limits == [1])
    }

    @Test("a host's transfers spread over the lanes by the share of each lane's limit in use, the lowest lane on a tie")
    func spread() {
        var lanes = LoopLanes(loops: 2, perHost: 3)
        #expect((1...3).map { lanes.take(id($0), host: "a:80") } == [0, 1, 0])
        #expect(lanes.held("a:80") == [2, 1])
        // Full: a transfer that waits for a busy connection waits where a share as small as any
        // is busy (lane 0: two connections that may free, not one), opening none.
        #expect(lanes.take(id(4), host: "a:80") == 0)
        lanes.release(id(1))
        lanes.release(id(3))
        #expect(lanes.held("a:80") == [1, 1])
        // Half of lane 0's share is in use, all of lane 1's.
        #expect(lanes.take(id(5), host: "a:80") == 0)
        // Another host has lanes of its own to fill.
        #expect(lanes.take(id(6), host: "b:80") == 0)
        #expect(lanes.take(id(7), host: "b:80") == 1)
        #expect(lanes.held("a:80") == [2, 1])
        #expect(lanes.held("b:80") == [1, 1])
    }

    @Test("a transfer keeps its lane until it gives it back; giving back twice, or unknown, changes nothing")
    func keepsAndReleases() {
        var lanes = LoopLanes(loops: 3, perHost: 3)
        #expect(lanes.take(id(1), host: "a:80") == 0)
        #expect(lanes.take(id(1), host: "a:80") == 0)
        #expect(lanes.held("a:80") == [1, 0, 0])
        lanes.release(id(1))
        lanes.release(id(1))
        lanes.release(id(9))
        #expect(lanes.held("a:80") == [0, 0, 0])
        #expect(lanes.take(id(2), host: "a:80") == 0)
    }
}
