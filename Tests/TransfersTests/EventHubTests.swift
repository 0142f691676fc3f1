import Testing

@testable import TransferEngine

@Suite("Event hub bounds (pure)")
struct EventHubTests {
    enum Event: Sendable, Hashable {
        case progress(Int, Int)
        case state(Int, String)
        case overflowed(Int)
    }

    private func hub(limit: Int) -> EventHub<Event> {
        EventHub(
            bound: .init(
                limit: limit,
                subject: { event -> AnyHashable? in
                    switch event {
                    case .progress(let id, _), .state(let id, _): id
                    case .overflowed: nil
                    }
                },
                isReplaceable: { if case .progress = $0 { true } else { false } },
                overflow: { .overflowed($0) }))
    }

    private func drain(_ stream: AsyncStream<Event>, count: Int) async -> [Event] {
        var events: [Event] = []
        for await event in stream {
            events.append(event)
            if events.count == count { break }
        }
        return events
    }

    @Test("undelivered progress is replaced by the latest, in its place; a state change is never merged or passed")
    func coalesces() async {
        let hub = hub(limit: 100)
        let stream = hub.subscribe()
        for event: Event in [
            .progress(1, 10), .progress(1, 20), .progress(2, 5), .state(1, "paused"), .progress(1, 30), .progress(2, 6),
            .progress(1, 40),
        ] {
            hub.emit(event)
        }
        #expect(hub.backlogs == [4])
        #expect(await drain(stream, count: 4) == [.progress(1, 20), .progress(2, 6), .state(1, "paused"), .progress(1, 40)])
    }

    @Test("a listener that never reads holds at most the limit, then gets one overflow event and the end")
    func neverReads() async {
        let hub = hub(limit: 64)
        let stream = hub.subscribe()
        var largest = 0
        for id in 1...10_000 {
            hub.emit(.state(id, "queued"))
            hub.emit(.progress(id % 7, id))
            largest = max(largest, hub.backlogs.max() ?? 0)
        }
        #expect(largest <= 64)
        #expect(hub.backlogs.isEmpty, "the listener is let go when it overflows")
        var events: [Event] = []
        for await event in stream { events.append(event) }
        #expect(events.count == 1)
        guard case .overflowed(let dropped) = events.first else {
            Issue.record("expected the overflow event, got \(events)")
            return
        }
        #expect(dropped == 65)
    }

    @Test("a backlog allowed for a burst holds the burst whole, for listeners old and new; beyond it, the overflow")
    func allowedBacklog() async {
        let hub = hub(limit: 8)
        let early = hub.subscribe()
        hub.allowBacklog(atLeast: 100)
        hub.allowBacklog(atLeast: 20)  // never lowers it
        let late = hub.subscribe()
        for id in 1...100 { hub.emit(.state(id, "queued")) }
        #expect(hub.backlogs == [100, 100])
        #expect(await drain(early, count: 100) == (1...100).map { .state($0, "queued") })
        hub.emit(.state(101, "queued"))
        var events: [Event] = []
        for await event in late { events.append(event) }
        #expect(events == [.overflowed(101)])
    }

    @Test("a batch listener gets every event waiting in one batch, in order, at most its limit; then the next alone")
    func batches() async {
        let hub = hub(limit: 100)
        let stream = hub.subscribeBatches(limit: 3)
        for id in 1...5 { hub.emit(.state(id, "completed")) }
        // The reader tells how many batches it has; the last event is sent once it has two.
        let (counts, tell) = AsyncStream<Int>.makeStream()
        let reader = Task {
            var batches: [[Event]] = []
            for await batch in stream {
                batches.append(batch)
                tell.yield(batches.count)
                if batches.count == 3 { break }
            }
            return batches
        }
        for await count in counts where count == 2 { break }
        hub.emit(.state(6, "failed"))
        let batches = await reader.value
        #expect(
            batches == [
                [.state(1, "completed"), .state(2, "completed"), .state(3, "completed")],
                [.state(4, "completed"), .state(5, "completed")], [.state(6, "failed")],
            ])
        hub.finish()
    }

    @Test("a listener that keeps up gets every event, in order")
    func keepsUp() async {
        let hub = hub(limit: 16)
        let stream = hub.subscribe()
        // The reader acknowledges each event; the next is sent only then, so it keeps up by
        // construction (no waiting on time, no spinning).
        let (acks, acknowledge) = AsyncStream<Void>.makeStream()
        let reader = Task {
            var events: [Event] = []
            for await event in stream {
                events.append(event)
                acknowledge.yield()
                if events.count == 1000 { break }
            }
            return events
        }
        var sent: [Event] = []
        var acked = acks.makeAsyncIterator()
        for id in 1...1000 {
            let event = Event.state(id, "downloaded")
            sent.append(event)
            hub.emit(event)
            #expect(hub.backlogs.allSatisfy { $0 <= 1 })
            _ = await acked.next()
        }
        #expect(await reader.value == sent)
    }

    @Test("a stream let go of is unsubscribed")
    func dropped() async {
        let hub = hub(limit: 8)
        do {
            let stream = hub.subscribe()
            hub.emit(.state(1, "x"))
            #expect(hub.backlogs == [1])
            _ = stream
        }
        #expect(hub.backlogs.isEmpty)
    }

    @Test("of three listeners, the one let go is the one unsubscribed; the others still get every event")
    func droppedAmongOthers() async throws {
        let hub = hub(limit: 8)
        let first = hub.subscribe()
        hub.emit(.state(1, "a"))
        do {
            let second = hub.subscribeBatches()
            hub.emit(.state(2, "b"))
            #expect(hub.backlogs == [2, 1])
            _ = second
        }
        // Required: were the wrong listener let go of, reading the first below would wait for ever.
        try #require(hub.backlogs == [2], "the first listener stays, holding both events")
        let third = hub.subscribe()
        hub.emit(.state(3, "c"))
        #expect(hub.backlogs == [3, 1])
        #expect(await drain(first, count: 3) == [.state(1, "a"), .state(2, "b"), .state(3, "c")])
        #expect(await drain(third, count: 1) == [.state(3, "c")])
    }
}
