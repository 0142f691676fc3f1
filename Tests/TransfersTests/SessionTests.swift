import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import TransferEngine

@Suite("Transfer session", .timeLimit(.minutes(1)))
struct SessionTests {
    /// The most transfers running at once, read from the order of state changes.
    /// The most transfers receiving at once: a transfer holds its connection from its `running`
    /// event until its body is complete (its last progress event, all bytes in); it then finishes
    /// its file (flush, rename) without one, and the next transfer may start.
    private func peakRunning(_ events: [TransferEvent], host: ((TransferID) -> Bool)? = nil) -> Int {
        var running = Set<TransferID>()
        var peak = 0
        for event in events where host?(event.transferID) ?? true {
            switch event {
            case .stateChanged(let id, .running): running.insert(id)
            case .stateChanged(let id, _): running.remove(id)
            case .progress(let id, let received, let expected) where received == expected: running.remove(id)
            default: continue
            }
            peak = max(peak, running.count)
        }
        return peak
    }

    /// The most transfers in the `running` state at once, finishing ones included.
    private func peakInRunningState(_ events: [TransferEvent]) -> Int {
        var running = Set<TransferID>()
        var peak = 0
        for case .stateChanged(let id, let state) in events {
            if state == .running { running.insert(id) } else { running.remove(id) }
            peak = max(peak, running.count)
        }
        return peak
    }

    @Test("50 downloads with a limit of 4: never more than 4 receiving at once, all byte-exact, started in order")
    func fiftyAtOnce() async throws {
        try await withDemoCatalog { catalog, url in
            let ids = catalog.tracks.filter(\.hasPreview).map(\.id)
            let configuration = TransferSessionConfiguration(maxConcurrentTransfers: 4, maxTransfersPerHost: 4)
            try await withSession(configuration) { session, folder in
                let events = EventRecorder(session.events())
                var started: [(TransferID, Int, URL)] = []
                for index in 0..<50 {
                    let track = ids[index % ids.count]
                    let destination = folder.appendingPathComponent("files/\(index)-\(track).wav")
                    started.append(
                        (try await session.start(url: previewURL(url, track), destination: destination), track, destination))
                }
                for (id, _, _) in started { #expect(try await session.wait(for: id).state == .completed) }
                for (_, track, destination) in started {
                    #expect(sha256Hex(try contents(destination)) == sha256Hex(await catalog.preview(for: track)!.data))
                }
                #expect(await events.seenCompleted(started.map(\.0)))
                #expect(peakRunning(events.events) <= 4)
                #expect(peakRunning(events.events) >= 2)
                // Files waiting for the device are bounded too: at most as many as may receive. The
                // events also count as running the completions the session holds to journal in one
                // commit (it commits once it holds as many as may receive): at most 3 more.
                #expect(peakInRunningState(events.events) <= 4 + 4 + 3)
                let runOrder = events.events.compactMap { event -> TransferID? in
                    if case .stateChanged(let id, .running) = event { return id } else { return nil }
                }
                #expect(runOrder == started.map(\.0))
                #expect(filesIn(folder.appendingPathComponent("files")).count == 50)
            }
        }
    }

    @Test("the per-host limit holds while another host's transfers go ahead")
    func perHost() async throws {
        try await withDemoCatalog { catalog, url in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 4_000_000))
            // The same server under two names is two hosts to the scheduler.
            let other = URL(string: url.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost"))!
            let configuration = TransferSessionConfiguration(maxConcurrentTransfers: 4, maxTransfersPerHost: 2)
            try await withSession(configuration) { session, folder in
                let events = EventRecorder(session.events())
                var first: Set<TransferID> = []
                var all: [TransferID] = []
                for index in 0..<5 {
                    let id = try await session.start(
                        url: previewURL(url, 1001 + index), destination: folder.appendingPathComponent("a\(index).wav"))
                    first.insert(id)
                    all.append(id)
                }
                for index in 0..<3 {
                    all.append(
                        try await session.start(
                            url: previewURL(other, 1012 + index), destination: folder.appendingPathComponent("b\(index).wav")))
                }
                for id in all {
                    let done = try await session.wait(for: id)
                    #expect(done.state == .completed, "\(done.failure?.message ?? "")")
                }
                #expect(await events.seenCompleted(all))
                #expect(peakRunning(events.events) { first.contains($0) } == 2)
                #expect(peakRunning(events.events) { !first.contains($0) } == 2)
                #expect(peakRunning(events.events) == 4)
            }
        }
    }

    @Test("a second owner is refused with an error naming the first")
    func lock() async throws {
        try await withSession { _, folder in
            await #expect {
                try await TransferSession.open(
                    identifier: "test", directory: folder.appendingPathComponent("session"), logger: quietLogger("t"))
            } throws: { error in
                guard let error = error as? TransferError else { return false }
                return error.code == .sessionLocked && error.message.contains("process \(getpid())")
            }
        }
    }

    @Test("closing interrupts running transfers; reopening resumes them from the bytes on disk")
    func reopen() async throws {
        try await withDemoCatalog { catalog, url in
            let preview = try #require(await catalog.preview(for: 1020))
            catalog.setFaults(PreviewFaults(bytesPerSecond: 1_000_000), for: 1020)
            try await withTemporaryDirectory { folder in
                let sessionFolder = folder.appendingPathComponent("session")
                let destination = folder.appendingPathComponent("song.wav")
                let first = try await TransferSession.open(identifier: "s", directory: sessionFolder, logger: quietLogger("t"))
                let events = EventRecorder(first.events())
                let id = try await first.start(url: previewURL(url, 1020), destination: destination, tag: "track:1020")
                await events.received(id, atLeast: 200_000)
                await first.close()
                let onDisk = PartialFile.length(at: destination.path + ".part")
                #expect(onDisk >= 200_000)

                catalog.setFaults(PreviewFaults(), for: 1020)
                let second = try await TransferSession.open(identifier: "s", directory: sessionFolder, logger: quietLogger("t"))
                #expect(await second.transfer(id)?.tag == "track:1020")
                let done = try await second.wait(for: id)
                await second.close()
                #expect(done.state == .completed)
                #expect(sha256Hex(try contents(destination)) == sha256Hex(preview.data))
                let last = try #require(catalog.previewRequests.last { $0.trackId == 1020 })
                #expect(last.range == "bytes=\(onDisk)-")
            }
        }
    }

    @Test("progress is throttled: with the clock standing still, only the final progress event")
    func throttledProgress() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let session = try await TransferSession.open(
                    identifier: "s", directory: folder, clock: ManualClock(), logger: quietLogger("t"))
                let events = EventRecorder(session.events())
                let id = try await session.start(url: previewURL(url, 1021), destination: folder.appendingPathComponent("x.wav"))
                #expect(try await session.wait(for: id).state == .completed)
                #expect(await events.seenCompleted([id]))
                await session.close()
                let progress = events.events.filter { if case .progress = $0 { true } else { false } }
                // 1.3 MB arrive in dozens of buffers, but the clock says no time passed: one event.
                #expect(progress == [.progress(id, received: 1_323_044, expected: 1_323_044)])
            }
        }
    }

    @Test("a response head is an event by default, with the server's status and headers; none when turned off")
    func respondedEvents() async throws {
        try await withDemoCatalog { catalog, url in
            for reports in [true, false] {
                try await withTemporaryDirectory { folder in
                    let session = try await TransferSession.open(
                        identifier: "s", directory: folder,
                        configuration: TransferSessionConfiguration(reportsResponses: reports), logger: quietLogger("t"))
                    let events = EventRecorder(session.events())
                    let destination = folder.appendingPathComponent("x.wav")
                    let id = try await session.start(url: previewURL(url, 1021), destination: destination)
                    #expect(try await session.wait(for: id).state == .completed)
                    #expect(await events.seenCompleted([id]))
                    await session.close()
                    let heads = events.events.compactMap { event -> TransferResponse? in
                        if case .responded(_, let response) = event { response } else { nil }
                    }
                    #expect(try await catalog.preview(for: 1021)!.data == contents(destination))
                    if reports {
                        #expect(heads.map(\.status) == [200])
                        #expect(heads.first?.headers["Content-Length"] == "1323044")
                    } else {
                        #expect(heads.isEmpty)
                    }
                }
            }
        }
    }

    @Test("a paused transfer stays paused across a reopen, and resume needs the user")
    func pausedStaysPaused() async throws {
        try await withDemoCatalog { catalog, url in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 1_000_000), for: 1022)
            // Paused mid-download whatever the machine's speed: the body waits at 300 KB.
            catalog.hold(1022, atByte: 300_000)
            defer { catalog.release(1022) }
            try await withTemporaryDirectory { folder in
                let destination = folder.appendingPathComponent("song.wav")
                let first = try await TransferSession.open(identifier: "s", directory: folder, logger: quietLogger("t"))
                let events = EventRecorder(first.events())
                let id = try await first.start(url: previewURL(url, 1022), destination: destination)
                await events.received(id, atLeast: 100_000)
                let resumeData = try await first.pause(id)
                await first.close()
                let second = try await TransferSession.open(identifier: "s", directory: folder, logger: quietLogger("t"))
                let snapshot = await second.transfer(id)
                #expect(snapshot?.state == .paused)
                #expect(snapshot?.receivedBytes == resumeData.bytesOnDisk)
                await second.close()
            }
        }
    }
}

@Suite("Damaged journal")
struct DamagedJournalTests {
    @Test(
        "a journal that is not SQLite is refused with a clear error, not a crash",
        arguments: [
            Data("this is not a database".utf8), Data(repeating: 0xFF, count: 8192),
            Data("SQLite format 3\u{0}".utf8) + Data(repeating: 7, count: 4000),
        ])
    func garbage(contents: Data) async throws {
        try await withTemporaryDirectory { folder in
            try contents.write(to: folder.appendingPathComponent("s.journal.sqlite"))
            await #expect {
                try await TransferSession.open(identifier: "s", directory: folder, logger: quietLogger("t"))
            } throws: { error in
                guard let error = error as? TransferError else { return false }
                return error.code == .journal && error.message.contains("cannot open the transfer journal")
            }
            // The lock was released: a repaired journal opens.
            try FileManager.default.removeItem(at: folder.appendingPathComponent("s.journal.sqlite"))
            let session = try await TransferSession.open(identifier: "s", directory: folder, logger: quietLogger("t"))
            await session.close()
        }
    }
}
