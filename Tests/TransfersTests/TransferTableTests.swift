import DemoCatalog
import Foundation
import Synchronization
import Testing

@testable import TransferEngine

/// The session's table of transfers and its indexes (pure: no I/O).
@Suite("Transfer table")
struct TransferTableTests {
    func record(_ n: Int, seq: Int64, state: TransferState, host: String = "a.example") -> TransferRecord {
        TransferRecord(
            id: "t\(n)", seq: seq, url: "http://\(host)/\(n)", destination: "/music/\(n).m4a",
            partialFile: "/music/\(n).m4a.part", tag: nil, state: state.rawValue, receivedBytes: 0, durableBytes: 0,
            expectedBytes: nil, etag: nil, lastModified: nil, contentType: nil, errorCode: nil, errorMessage: nil,
            errorPermanent: nil, createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
    }

    @Test("queued transfers come out in queue order, whatever order they went in, with their hosts")
    func queueOrder() {
        var table = TransferTable()
        for (n, seq) in [(1, 5), (2, 1), (3, 9), (4, 3)] {
            table[TransferID(rawValue: "t\(n)")] = record(n, seq: Int64(seq), state: .queued, host: "H\(n).Example")
        }
        #expect(table.queued.map(\.id.rawValue) == ["t2", "t4", "t1", "t3"])
        #expect(table.queued.map(\.host) == ["h2.example:80", "h4.example:80", "h1.example:80", "h3.example:80"])
        #expect(table.nextSequence() == 10)
    }

    @Test("a transfer's host is the host and port it connects to, as the HTTP client pools connections")
    func hostAndPort() {
        var https = record(1, seq: 1, state: .queued)
        https.url = "HTTPS://Cdn.Example/a.m4a"
        var port = record(2, seq: 2, state: .queued)
        port.url = "http://cdn.example:8080/a.m4a"
        #expect(https.host == "cdn.example:443")
        #expect(port.host == "cdn.example:8080")
        #expect(record(3, seq: 3, state: .queued, host: "cdn.example").host == "cdn.example:80")
    }

    @Test("a transfer leaves the queue when it starts, pauses or goes, and comes back in its place")
    func stateChanges() {
        var table = TransferTable()
        for n in 1...4 { table[TransferID(rawValue: "t\(n)")] = record(n, seq: Int64(n), state: .queued) }
        table[TransferID(rawValue: "t2")] = record(2, seq: 2, state: .running)
        table[TransferID(rawValue: "t3")] = record(3, seq: 3, state: .paused)
        #expect(table.queued.map(\.id.rawValue) == ["t1", "t4"])
        table[TransferID(rawValue: "t3")] = record(3, seq: 3, state: .queued)
        table[TransferID(rawValue: "t1")] = nil
        #expect(table.queued.map(\.id.rawValue) == ["t3", "t4"])
        #expect(table.values.count == 3)
    }

    @Test("3,000 transfers started oldest first, with some paused and resumed between: the queue stays in order")
    func longQueue() {
        var table = TransferTable()
        var queued = Array(1...3000)  // the model: queued transfers' numbers, sorted
        var paused: [Int] = []
        for n in queued { table[TransferID(rawValue: "t\(n)")] = record(n, seq: Int64(n), state: .queued) }
        var generator = SplitMix(seed: 14)
        func pick(_ list: [Int]) -> Int { list[Int(generator.next() % UInt64(list.count))] }
        for step in 0..<6000 {
            let n: Int
            let state: TransferState
            switch generator.next() % 10 {
            case 0..<6 where !queued.isEmpty: (n, state) = (queued[0], .running)  // the oldest starts
            case 6..<8 where !queued.isEmpty: (n, state) = (pick(queued), .paused)
            case 8 where !paused.isEmpty: (n, state) = (pick(paused), .queued)
            default: continue
            }
            table[TransferID(rawValue: "t\(n)")] = record(n, seq: Int64(n), state: state)
            queued.removeAll { $0 == n }
            paused.removeAll { $0 == n }
            if state == .queued { queued.insert(n, at: queued.firstIndex { $0 > n } ?? queued.endIndex) }
            if state == .paused { paused.append(n) }
            if step % 250 == 0 || queued.count < 3 {
                #expect(table.queued.map(\.id.rawValue) == queued.map { "t\($0)" }, "step \(step)")
            }
        }
        #expect(table.queued.map(\.id.rawValue) == queued.map { "t\($0)" })
        #expect(queued.isEmpty && !paused.isEmpty)  // the run reached the end of the queue
    }

    @Test("a destination is busy until its transfer completes or is cancelled")
    func destinations() {
        var table = TransferTable()
        let id = TransferID(rawValue: "t1")
        table[id] = record(1, seq: 1, state: .queued)
        #expect(table.transfer(writing: "/music/1.m4a") == id)
        for state in [TransferState.running, .paused, .failed] {
            table[id] = record(1, seq: 1, state: state)
            #expect(table.transfer(writing: "/music/1.m4a") == id, "\(state)")
        }
        table[id] = record(1, seq: 1, state: .completed)
        #expect(table.transfer(writing: "/music/1.m4a") == nil)
        table[id] = record(1, seq: 1, state: .queued)
        table[id] = nil
        #expect(table.transfer(writing: "/music/1.m4a") == nil)
        #expect(table.transfer(writing: "/music/2.m4a") == nil)
    }

    @Test("folder flushes: each call is covered by a flush that began after it; calls together share flushes")
    func folderFlushes() async throws {
        let flusher = FolderFlusher()
        let folder = FileManager.default.temporaryDirectory.path
        for _ in 1...3 { await flusher.flush(folder) }
        #expect(flusher.flushCount == 3)
        await withTaskGroup(of: Void.self) { group in
            for _ in 1...32 { group.addTask { await flusher.flush(folder) } }
        }
        #expect((4...35).contains(flusher.flushCount))
    }

    @Test("folder flushes: a call whose ticket the last flush covered while it got ready to wait returns")
    func folderFlushRace() async throws {
        // Regression: the leader (on a file-work thread) covered a waiter's ticket and dropped the
        // folder's entry between the waiter taking its ticket and starting to wait; the waiter then
        // crashed on the missing entry (once in some 17,000 flushes). Here the threads are put in
        // that order: the first flush holds until the second call has its ticket, and the second
        // call starts waiting only once the first has returned.
        let leaderFlushing = DispatchSemaphore(value: 0)
        let waiterHasTicket = DispatchSemaphore(value: 0)
        let (leaderDone, leaderReturned) = AsyncStream<Void>.makeStream()
        let firstFlush = Mutex(true)
        let flusher = FolderFlusher(
            flush: { _ in
                guard
                    firstFlush.withLock({ first in
                        defer { first = false }
                        return first
                    })
                else { return }
                leaderFlushing.signal()
                waiterHasTicket.wait()
            },
            beforeWaiting: {
                waiterHasTicket.signal()
                for await _ in leaderDone {}
            })
        let folder = FileManager.default.temporaryDirectory.path
        let leader = Task { await flusher.flush(folder) }
        await Task.detached { leaderFlushing.wait() }.value
        let waiter = Task { await flusher.flush(folder) }
        await leader.value
        leaderReturned.finish()
        await waiter.value
        // The first flush began before the second call; a second flush covered it.
        #expect(flusher.flushCount == 2)
    }
}
