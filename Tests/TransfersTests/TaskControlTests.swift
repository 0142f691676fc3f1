import DemoCatalog
import Foundation
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What apps call on tasks besides resume and cancel: nested suspends, the task lists, the size
/// they expect, async resume data, a task's own delegate.
@Suite("Task control", .timeLimit(.minutes(1)))
struct TaskControlTests {
    @Test("suspend nests as corelibs counts: two suspends need two resumes; the resource timeout waits while suspended")
    func nestedSuspend() async throws {
        try await withDemoCatalog { catalog, base in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 100_000), for: 1004)
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder, { $0.timeoutIntervalForResource = 1.5 }) { session, recorder in
                    let task = session.downloadTask(with: previewURL(base, 1004))
                    // Suspended as soon as it starts (the session takes calls in order): the
                    // whole timeout is left, however busy the machine.
                    task.resume()
                    task.suspend()
                    task.suspend()
                    task.resume()
                    #expect(task.state == .suspended, "one resume for two suspends")
                    // Longer than the resource timeout, suspended: it does not fire.
                    try await Task.sleep(for: .seconds(2))
                    #expect(task.state == .suspended && task.error == nil)
                    task.resume()
                    #expect(task.state == .running)
                    // The rest of the timeout runs now: the slow download cannot beat it.
                    let error = await recorder.completion(of: task) as? URLError
                    #expect(error?.code == .timedOut && error?.downloadTaskResumeData != nil)
                }
            }
        }
    }

    @Test(
        "tasks and getTasksWithCompletionHandler list data, upload and download tasks until they complete; the expected size is kept"
    )
    func taskLists() async throws {
        try await withDemoCatalog { _, base in
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    let data = session.dataTask(with: URL(string: "\(base)/lookup?id=1001")!)
                    let upload = session.uploadTask(
                        with: URLRequest(url: URL(string: "\(base)/lookup?id=1002")!), from: Data("x".utf8))
                    let downloads = [1001, 1002].map { session.downloadTask(with: previewURL(base, $0)) }
                    downloads[0].countOfBytesClientExpectsToReceive = 1_000_000
                    #expect(downloads[0].countOfBytesClientExpectsToReceive == 1_000_000)
                    #expect(downloads[1].countOfBytesClientExpectsToReceive == -1)
                    let listed = await session.tasks
                    #expect(listed.dataTasks.map(\.taskIdentifier) == [data.taskIdentifier])
                    #expect(listed.uploadTasks.map(\.taskIdentifier) == [upload.taskIdentifier])
                    #expect(listed.downloadTasks.map(\.taskIdentifier) == downloads.map(\.taskIdentifier))
                    let viaHandler = await withCheckedContinuation { continuation in
                        session.getTasksWithCompletionHandler { continuation.resume(returning: ($0.count, $1.count, $2.count)) }
                    }
                    #expect(viaHandler == (1, 1, 2))
                    downloads.forEach { $0.resume() }
                    for task in downloads { #expect(await recorder.completion(of: task) == nil) }
                    data.cancel()
                    upload.cancel()
                    let after = await session.tasks
                    #expect(after.dataTasks.isEmpty && after.uploadTasks.isEmpty && after.downloadTasks.isEmpty)
                }
            }
        }
    }

    @Test("download(from:delegate:): the task's delegate hears its progress, the session's does not")
    func taskDelegate() async throws {
        try await withDemoCatalog { catalog, base in
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, sessionRecorder in
                    let own = DelegateRecorder()
                    let (file, response) = try await session.download(from: previewURL(base, 1005), delegate: own)
                    defer { try? FileManager.default.removeItem(at: file) }
                    #expect((response as? HTTPURLResponse)?.statusCode == 200)
                    #expect(try await catalog.preview(for: 1005)?.data == Data(contentsOf: file))
                    let size = Int64(try #require(await catalog.preview(for: 1005)).data.count)
                    let last = await own.first { if case .wrote(_, _, size, _) = $0 { true } else { false } }
                    guard case .wrote = last else {
                        Issue.record("the task's delegate heard no progress")
                        return
                    }
                    #expect(sessionRecorder.calls.isEmpty)
                }
            }
        }
    }
}
