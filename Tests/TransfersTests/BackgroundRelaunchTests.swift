import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import TransferEngine
@testable import Transfers

/// A background session's relaunch: what a process left in the session's journal — a task that
/// finished while no process ran, one still running, one suspended — is handed to the next session
/// with its identifier, and `urlSessionDidFinishEvents(forBackgroundURLSession:)` comes exactly once,
/// after the events of every task that was not suspended.
@Suite("A background session relaunched with running, suspended and finished tasks", .timeLimit(.minutes(2)))
struct BackgroundRelaunchTests {
    @Test("urlSessionDidFinishEvents once, after the finished and the running task's events; the suspended one stays")
    func relaunch() async throws {
        try await withDemoCatalog { catalog, base in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 200_000), for: 1002)
            try await withTemporaryDirectory { folder in
                let state = folder.appendingPathComponent("state")
                let journal = state.appendingPathComponent("sessions/relaunch.test", isDirectory: true)
                let downloads = journal.appendingPathComponent("downloads", isDirectory: true)
                try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
                // What a killed process left: task 1 finished, task 2 running with bytes on disk,
                // task 3 suspended, as its session journals them.
                let engine = try await TransferSession.open(
                    identifier: "relaunch.test", directory: journal, logger: quietLogger("engine"))
                func start(_ task: Int, _ id: Int) async throws -> TransferID {
                    try await engine.start(
                        url: previewURL(base, id), destination: downloads.appendingPathComponent("\(task).download"),
                        tag: SessionCore.TaskTag(task: task, description: "task \(task)").encoded)
                }
                let events = EventRecorder(engine.events())
                let finished = try await start(1, 1001)
                #expect(try await engine.wait(for: finished).state == .completed)
                let suspended = try await start(3, 1003)
                _ = try await engine.pause(suspended)
                let running = try await start(2, 1002)
                await events.received(running, atLeast: 50_000)
                await engine.close()
                catalog.setFaults(PreviewFaults(), for: 1002)

                let configuration = ResumableURLSessionConfiguration.background(withIdentifier: "relaunch.test")
                configuration.stateDirectory = state
                configuration.usesTransferAgent = false  // this process's alone, whatever agent the machine runs
                let recorder = DelegateRecorder()
                let session = ResumableURLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
                defer { session.invalidateAndCancel() }
                // Bounded: a session that never makes the call fails the test instead of hanging it.
                let (came, signal) = AsyncStream<Bool>.makeStream()
                Task {
                    _ = await recorder.first { if case .backgroundEventsFinished = $0 { true } else { false } }
                    signal.yield(true)
                }
                Task {
                    try? await Task.sleep(for: .seconds(60))
                    signal.yield(false)
                }
                var signals = came.makeAsyncIterator()
                try #require(await signals.next() == true, "urlSessionDidFinishEvents never came")
                let tasks = await session.allTasks
                #expect(
                    Set(tasks.map(\.taskIdentifier)) == [3], "only the suspended task is left: \(tasks.map(\.taskIdentifier))")
                #expect(tasks.first?.state == .suspended)
                // Both ended before the call, each with its file.
                let calls = recorder.calls
                let finishedAt = calls.firstIndex { if case .backgroundEventsFinished = $0 { true } else { false } }!
                for task in [1, 2] {
                    let completed = calls.firstIndex { if case .completed(task, .none) = $0 { true } else { false } }
                    #expect(completed.map { $0 < finishedAt } == true, "task \(task) did not complete before the call")
                    let file = calls.compactMap { if case .finished(task, let data, _) = $0 { data } else { nil } }.first
                    let id = task == 1 ? 1001 : 1002
                    let source = await catalog.preview(for: id)
                    #expect(file.map(sha256Hex) == source.map { sha256Hex($0.data) }, "task \(task)")
                }
                // The suspended task finishes later, once resumed: no second call.
                let last = try #require(tasks.first)
                last.resume()
                #expect(await recorder.completion(of: last) == nil)
                let count = recorder.calls.filter { if case .backgroundEventsFinished = $0 { true } else { false } }.count
                #expect(count == 1)
            }
        }
    }
}
