import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import TransferEngine

/// Promises the README makes that a one-line break of the engine used to survive: each test here
/// fails for that break (see scripts/mutate).
@Suite("Engine promises", .timeLimit(.minutes(1)))
struct PromiseTests {
    private func download(
        from server: ScriptedServer, clock: ManualClock? = nil, retries: RetryPolicy = quickRetries,
        _ body: (TransferSession, TransferID, URL) async throws -> Void = { _, _, _ in }
    ) async throws -> TransferSnapshot {
        try await withTestServer(server.router()) { base in
            try await withTemporaryDirectory { folder in
                let session = try await TransferSession.open(
                    identifier: "promises", directory: folder.appendingPathComponent("session"),
                    configuration: TransferSessionConfiguration(retryPolicy: retries), clock: clock ?? ManualClock(),
                    logger: quietLogger("transfers"))
                let destination = folder.appendingPathComponent("file.bin")
                let id = try await session.start(url: base.appendingPathComponent("file.bin"), destination: destination)
                try await body(session, id, destination)
                let done = try await session.wait(for: id)
                await session.close()
                if done.state == .completed { #expect(try contents(destination) == server.data) }
                return done
            }
        }
    }

    @Test("a chunked body cut before its last chunk is never taken for the whole file: the rest is fetched")
    func cutChunkedBody() async throws {
        let server = ScriptedServer(size: 300_000, script: [.cutChunked(after: 100_000)])
        // Retries sleep on the manual clock with no delay to wait out: a policy whose base delay is zero.
        let done = try await download(from: server, retries: RetryPolicy(maxAttemptsWithoutProgress: 4, baseDelay: .zero))
        #expect(done.state == .completed)
        let log = server.log.all
        #expect(log.count == 2)
        let offset = try #require(log.last?.range.flatMap { Int($0.dropFirst(6).dropLast()) })
        #expect(offset > 0 && offset <= 100_000)
    }

    @Test("a 206 that announces the total but ends short is never completed: the next request starts where it ended")
    func shortRangeWithTotal() async throws {
        let server = ScriptedServer(size: 300_000, script: [.cutChunked(after: 100_000), .shortRange(bytes: 50_000)])
        let done = try await download(from: server, retries: RetryPolicy(maxAttemptsWithoutProgress: 4, baseDelay: .zero))
        #expect(done.state == .completed)
        let offsets = server.log.all.dropFirst().compactMap { $0.range.flatMap { Int($0.dropFirst(6).dropLast()) } }
        #expect(offsets.count == 2)
        #expect(offsets.count == 2 && offsets[1] == offsets[0] + 50_000)
    }

    @Test("a 206 body longer than the total it announced is not written past it: the download starts over")
    func longerThanAnnounced() async throws {
        let server = ScriptedServer(size: 300_000, script: [.cutChunked(after: 100_000), .longRange(extra: 5_000)])
        let done = try await download(from: server, retries: RetryPolicy(maxAttemptsWithoutProgress: 4, baseDelay: .zero))
        #expect(done.state == .completed)
        #expect(server.log.all.map(\.status) == [200, 206, 200])
    }

    /// Downloads the server's file once, lets `crash` leave the journal's record and the files as a
    /// crash would have, opens the session again and hands it to `body` (then closes it).
    private func afterCrash(
        _ server: ScriptedServer, crash: (inout TransferRecord, _ destination: URL) throws -> Void,
        _ body: (TransferSession, TransferID, _ destination: URL) async throws -> Void
    ) async throws {
        try await withTestServer(server.router()) { base in
            try await withTemporaryDirectory { folder in
                let sessionFolder = folder.appendingPathComponent("session")
                let destination = folder.appendingPathComponent("file.bin")
                let first = try await TransferSession.open(identifier: "c", directory: sessionFolder, logger: quietLogger("t"))
                let id = try await first.start(url: base.appendingPathComponent("file.bin"), destination: destination)
                #expect(try await first.wait(for: id).state == .completed)
                await first.close()
                let journal = try TransferJournal(path: sessionFolder.appendingPathComponent("c.journal.sqlite").path)
                var record = try #require(try journal.all().first)
                try crash(&record, destination)
                try journal.save(record)
                let second = try await TransferSession.open(identifier: "c", directory: sessionFolder, logger: quietLogger("t"))
                try await body(second, id, destination)
                await second.close()
            }
        }
    }

    @Test("a file renamed into place just before a crash (journal not yet told) is done at the next open, not fetched again")
    func renamedBeforeCrash() async throws {
        let server = ScriptedServer(size: 50_000, script: [])
        try await afterCrash(server) { record, _ in
            record.state = TransferState.running.rawValue
        } _: { session, id, destination async throws in
            #expect(await session.transfer(id)?.state == .completed)
            #expect(try contents(destination) == server.data)
            #expect(server.log.count == 1)
        }
    }

    @Test(
        "a whole body on disk with no validator journaled (a small file cut before its completion) is fetched again from 0"
    )
    func wholeBodyWithoutValidator() async throws {
        // A fresh transfer whose body ends before its validator is due (a progress interval, a
        // MiB) journals nothing until its completion (BodyWriter); a crash in between leaves the
        // journal as it was at `start`.
        let server = ScriptedServer(size: 2_000, script: [])
        try await afterCrash(server) { record, destination in
            record.state = TransferState.running.rawValue
            (record.etag, record.lastModified, record.receivedBytes) = (nil, nil, 0)
            // Another version's bytes, as long as the file: resuming them would keep them all.
            try FileManager.default.removeItem(at: destination)
            try Data(repeating: 0x55, count: server.data.count).write(to: URL(fileURLWithPath: record.partialFile))
        } _: { session, id, destination async throws in
            #expect(try await session.wait(for: id).state == .completed)
            #expect(try contents(destination) == server.data)
            #expect(server.log.all.map(\.range) == [nil, nil])
            #expect(server.log.all.map(\.status) == [200, 200])
        }
    }

    @Test("Retry-After is what the engine waits, in seconds and as an HTTP date, on the injected clock")
    func retryAfterOnTheClock() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        // An HTTP date 120 s ahead, in whole seconds: the engine, reading it at some moment after
        // `madeAt`, must wait what is left of it: between 119 s minus the time since, and 120 s.
        // (Far enough ahead that a loaded machine cannot use it up before the engine reads it:
        // with 9 s, a slow run let it expire, the engine rightly retried at once, and the test
        // waited forever for a sleeper.)
        let madeAt = Date()
        let date = formatter.string(from: madeAt.addingTimeInterval(120))
        let server = ScriptedServer(
            size: 10_000, script: [.unavailable(retryAfter: "7"), .unavailable(retryAfter: date)])
        let clock = ManualClock()
        let done = try await download(from: server, clock: clock) { _, _, _ in
            await clock.waitForSleepers(1)
            #expect(clock.sleeperDeadlines == [.seconds(7)])  // not the 20 ms backoff
            clock.advance(by: .seconds(7))
            await clock.waitForSleepers(1)
            let wait = try #require(clock.sleeperDeadlines.first) - .seconds(7)
            let since = Duration.milliseconds(Int64(Date().timeIntervalSince(madeAt) * 1000) + 2)
            #expect(wait >= .seconds(119) - since && wait <= .seconds(120), "\(wait), \(since) after the date was made")
            clock.advance(by: .seconds(120))
        }
        #expect(done.state == .completed)
        #expect(server.log.all.map(\.status) == [503, 503, 200])
    }

    @Test(
        "after a stop without a clean close, recovery resumes from the partial file's real length, whatever the journal says",
        arguments: [-60_000, 60_000])
    func recoveryTrustsTheFile(journalError: Int64) async throws {
        try await withDemoCatalog { catalog, url in
            let preview = try #require(await catalog.preview(for: 1021))
            catalog.setFaults(PreviewFaults(bytesPerSecond: 1_000_000), for: 1021)
            try await withTemporaryDirectory { folder in
                let sessionFolder = folder.appendingPathComponent("session")
                let destination = folder.appendingPathComponent("song.wav")
                let first = try await TransferSession.open(identifier: "k", directory: sessionFolder, logger: quietLogger("t"))
                let events = EventRecorder(first.events())
                let id = try await first.start(url: previewURL(url, 1021), destination: destination)
                await events.received(id, atLeast: 200_000)
                await first.close()
                // As a kill leaves it: the journal's count is not the file's (behind, or past it).
                let onDisk = PartialFile.length(at: destination.path + ".part")
                let journal = try TransferJournal(path: sessionFolder.appendingPathComponent("k.journal.sqlite").path)
                var record = try #require(try journal.all().first)
                record.receivedBytes = onDisk + journalError
                record.state = TransferState.running.rawValue
                try journal.save(record)

                catalog.setFaults(PreviewFaults(), for: 1021)
                let second = try await TransferSession.open(identifier: "k", directory: sessionFolder, logger: quietLogger("t"))
                let done = try await second.wait(for: id)
                await second.close()
                #expect(done.state == .completed)
                #expect(try contents(destination) == preview.data)
                #expect(catalog.previewRequests.last { $0.trackId == 1021 }?.range == "bytes=\(onDisk)-")
            }
        }
    }

    @Test("progress after a resume starts at the bytes on disk and never goes back")
    func progressAfterResume() async throws {
        try await withDemoCatalog { catalog, url in
            let preview = try #require(await catalog.preview(for: 1022))
            catalog.setFaults(PreviewFaults(bytesPerSecond: 1_000_000), for: 1022)
            try await withSession { session, folder in
                let events = EventRecorder(session.events())
                let id = try await session.start(url: previewURL(url, 1022), destination: folder.appendingPathComponent("s.wav"))
                await events.received(id, atLeast: 200_000)
                let paused = try await session.pause(id).bytesOnDisk
                #expect(await events.seen(.stateChanged(id, .paused)))
                let before = events.events.count
                // Still throttled: the rest takes about a second, so progress is reported mid-body.
                try await session.resume(id)
                #expect(try await session.wait(for: id).state == .completed)
                #expect(await events.seenCompleted([id]))
                let after = events.events.dropFirst(before).compactMap { event -> Int64? in
                    if case .progress(id, let received, _) = event { return received } else { return nil }
                }
                #expect(after.first.map { $0 >= paused } == true, "\(after.prefix(3)) after pausing at \(paused)")
                #expect(after == after.sorted())
                #expect(after.last == Int64(preview.data.count))
            }
        }
    }
}

@Suite("Test leftovers")
struct TestLeftoverTests {
    @Test("folders of a test process that is gone are swept; a living process's are kept")
    func sweep() async throws {
        try await withTemporaryDirectory { folder in
            // A pid that existed and is gone: a child that has ended and been reaped.
            let child = try ChildProcess(URL(fileURLWithPath: "/bin/true"), [])
            let gone = child.pid
            #expect(await child.wait().status == 0)
            for name in ["halftunes-test-\(gone)-dead", "halftunes-test-\(getpid())-live", "other-\(gone)"] {
                try FileManager.default.createDirectory(
                    at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
            }
            #expect(TestLeftovers.sweep(in: folder) == 1)
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            #expect(left == ["halftunes-test-\(getpid())-live", "other-\(gone)"].sorted())
        }
    }
}
