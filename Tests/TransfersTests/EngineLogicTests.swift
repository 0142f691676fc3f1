import Foundation
import Testing

@testable import TransferEngine

@Suite("Transfer state machine (pure)")
struct StateMachineTests {
    @Test("the allowed transitions, and only those")
    func transitions() {
        let allowed: [TransferState: [TransferAction: TransferState]] = [
            .queued: [.schedule: .running, .pause: .paused, .cancel: .cancelled, .fail: .failed, .interrupt: .queued],
            .running: [.pause: .paused, .cancel: .cancelled, .complete: .completed, .fail: .failed, .interrupt: .queued],
            .paused: [.resume: .queued, .cancel: .cancelled],
            .failed: [.resume: .queued, .cancel: .cancelled],
            .completed: [:],
            .cancelled: [:],
        ]
        let actions: [TransferAction] = [.schedule, .pause, .resume, .cancel, .complete, .fail, .interrupt]
        for state in TransferState.allCases {
            for action in actions {
                #expect(TransferStateMachine.next(state, on: action) == allowed[state]?[action], "\(state) on \(action)")
            }
        }
    }
}

@Suite("Retry policy (pure)")
struct RetryPolicyTests {
    @Test("backoff doubles up to the cap and gives up after the limit")
    func backoff() {
        let policy = RetryPolicy(maxAttemptsWithoutProgress: 5, baseDelay: .seconds(1), maxDelay: .seconds(5))
        // With jitter 1 the delay is the full backoff; with 0, half of it.
        #expect(policy.delay(afterFailedAttempts: 1, retryAfter: nil, jitter: 1) == .seconds(1))
        #expect(policy.delay(afterFailedAttempts: 2, retryAfter: nil, jitter: 1) == .seconds(2))
        #expect(policy.delay(afterFailedAttempts: 3, retryAfter: nil, jitter: 1) == .seconds(4))
        #expect(policy.delay(afterFailedAttempts: 4, retryAfter: nil, jitter: 1) == .seconds(5))
        #expect(policy.delay(afterFailedAttempts: 4, retryAfter: nil, jitter: 0) == .milliseconds(2500))
        #expect(policy.delay(afterFailedAttempts: 5, retryAfter: nil, jitter: 1) == nil)
    }

    @Test("the server's Retry-After is honoured, within reason")
    func retryAfter() {
        let policy = RetryPolicy(maxRetryAfter: .seconds(60))
        #expect(policy.delay(afterFailedAttempts: 1, retryAfter: .seconds(7), jitter: 0.5) == .seconds(7))
        #expect(policy.delay(afterFailedAttempts: 1, retryAfter: .seconds(3600), jitter: 0.5) == .seconds(60))
    }
}

@Suite("Scheduler (pure)")
struct SchedulerTests {
    @Test("keeps to the overall limit, in queue order")
    func overall() {
        let scheduler = Scheduler(maxConcurrent: 3, maxPerHost: 10)
        let queued = (1...6).map { ($0, "a") }
        #expect(scheduler.admit(queued: queued, runningHosts: []) == [1, 2, 3])
        #expect(scheduler.admit(queued: queued, runningHosts: ["a", "b"]) == [1])
        #expect(scheduler.admit(queued: queued, runningHosts: ["a", "b", "c"]).isEmpty)
    }

    @Test("keeps to the per-host limit without holding up other hosts")
    func perHost() {
        let scheduler = Scheduler(maxConcurrent: 4, maxPerHost: 2)
        let queued = [(1, "a"), (2, "a"), (3, "a"), (4, "b"), (5, "a"), (6, "c")]
        #expect(scheduler.admit(queued: queued, runningHosts: []) == [1, 2, 4, 6])
        #expect(scheduler.admit(queued: queued, runningHosts: ["a"]) == [1, 4, 6])
    }

    @Test("lets requests wait only behind a host whose connections are all busy, that many per host")
    func waiting() {
        let scheduler = Scheduler(maxConcurrent: 4, maxPerHost: 2, waitingPerHost: 1)
        let queued = [(1, "a"), (2, "a"), (3, "a"), (4, "a"), (5, "b"), (6, "b"), (7, "b")]
        // a: two connected and one waiting; b likewise; 4 is one too many for a.
        #expect(scheduler.admit(queued: queued, runningHosts: []) == [1, 2, 3, 5, 6, 7])
        #expect(scheduler.admit(queued: queued, runningHosts: ["a", "a", "a"]) == [5, 6, 7])
        // The overall limit reached with neither host full: waiting would open a connection.
        let wide = Scheduler(maxConcurrent: 2, maxPerHost: 4, waitingPerHost: 2)
        #expect(wide.admit(queued: queued, runningHosts: ["a", "b"]).isEmpty)
        // Without waiting, a full host has nothing more.
        #expect(Scheduler(maxConcurrent: 4, maxPerHost: 2).admit(queued: queued, runningHosts: ["a", "a"]) == [5, 6])
    }

    @Test("when only waiting may start, admits waiting requests of full hosts and nothing else")
    func waitingOnly() {
        let scheduler = Scheduler(maxConcurrent: 4, maxPerHost: 2, waitingPerHost: 2)
        let queued = [(1, "a"), (2, "b"), (3, "a"), (4, "a")]
        #expect(scheduler.admit(queued: queued, runningHosts: ["a", "a", "b"], waitingOnly: true) == [1, 3])
        #expect(scheduler.admit(queued: queued, runningHosts: ["b"], waitingOnly: true).isEmpty)
    }

    @Test("reads the queue only as far as something can start")
    func lazy() {
        final class Reads: @unchecked Sendable { var count = 0 }
        let reads = Reads()
        let queue = (1...10_000).lazy.map { id -> (id: Int, host: String) in
            reads.count += 1
            return (id, "a")
        }
        let scheduler = Scheduler(maxConcurrent: 4, maxPerHost: 4, waitingPerHost: 2)
        #expect(scheduler.admit(queued: queue, runningHosts: ["a", "a", "a", "a", "a"]) == [1])
        #expect(reads.count <= 2)
        reads.count = 0
        #expect(scheduler.admit(queued: queue, runningHosts: Array(repeating: "a", count: 6)).isEmpty)
        #expect(reads.count <= 1)
    }
}

@Suite("Resume data")
struct ResumeDataTests {
    @Test("encodes to a small value and back")
    func roundTrip() throws {
        let data = ResumeData(
            url: URL(string: "https://example.com/p.m4a?accessKey=1")!,
            destination: URL(fileURLWithPath: "/tmp/x/song.m4a"), partialFile: URL(fileURLWithPath: "/tmp/x/song.m4a.part"),
            bytesOnDisk: 12345, expectedBytes: 99999, validator: Validator(etag: "\"e\"", lastModified: nil), tag: "track:1")
        let encoded = try data.encoded()
        #expect(encoded.count < 512)
        #expect(try ResumeData(encoded: encoded) == data)
        #expect(throws: (any Error).self) { try ResumeData(encoded: Data("nope".utf8)) }
    }
}

@Suite("Paths (pure)")
struct PathTests {
    @Test("a file's folder is what NSString says it is, without NSString")
    func folders() {
        for path in [
            "/a/b/song.m4a", "/song.m4a", "song.m4a", "/a/Bench - Track 7 [400007].m4a", "/ä/ü/ö.m4a", "/a//b", "//b", "/",
        ] {
            #expect(PartialFile.folder(of: path) == (path as NSString).deletingLastPathComponent, "\(path)")
        }
    }
}
