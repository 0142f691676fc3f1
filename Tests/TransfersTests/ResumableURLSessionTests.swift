import DemoCatalog
import Foundation
import TestSupport
import Testing
import Transfers

@testable import TransferEngine

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The URLSession-shaped API, driven as an app drives Apple's, against a real local server.
@Suite("ResumableURLSession", .timeLimit(.minutes(1)))
struct ResumableURLSessionTests {
    @Test("three plain downloads: progress ends at exactly size/size, each file byte-exact, calls serial and off the main thread")
    func threeDownloads() async throws {
        try await withDemoCatalog { catalog, base in
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    let ids = [1001, 1002, 1003]
                    let tasks = ids.map { session.downloadTask(with: previewURL(base, $0)) }
                    #expect(tasks.allSatisfy { $0.state == .suspended })
                    tasks.forEach { $0.resume() }
                    #expect(tasks.allSatisfy { $0.state == .running })
                    for (task, id) in zip(tasks, ids) {
                        let error = await recorder.completion(of: task)
                        #expect(error == nil)
                        let preview = try #require(await catalog.preview(for: id))
                        let size = Int64(preview.data.count)
                        let filetask = try #require(recorder.file(of: task))
                        #expect(sha256Hex(filetask) == sha256Hex(preview.data))
                        let progress = recorder.progress(of: task)
                        #expect(progress.last?.total == size)
                        #expect(progress.last?.expected == size)
                        #expect(progress.map(\.written).reduce(0, +) == size)
                        let totals = progress.map(\.total)
                        #expect(totals == totals.sorted() && Set(totals).count == totals.count)
                        #expect(task.state == .completed)
                        #expect(task.countOfBytesReceived == size)
                        #expect(task.countOfBytesExpectedToReceive == size)
                        #expect(task.progress.fractionCompleted == 1)
                        #expect((task.response as? HTTPURLResponse)?.statusCode == 200)
                    }
                    // The file handed over is removed once the delegate method returned.
                    #expect(recorder.locations.count == 3)
                    #expect(recorder.locations.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
                    #expect(!recorder.overlapped)
                    #expect(!recorder.calledOnMainThread)
                    // The session's own queue, as `delegateQueue` names it (none was given).
                    #expect(recorder.everyCall(ranOn: session.delegateQueue))
                    #expect(await session.allTasks.isEmpty)
                }
            }
        }
    }

    @Test("every delegate call runs on the delegate queue that was given (OperationQueue.current), a serial one")
    func givenDelegateQueue() async throws {
        try await withDemoCatalog { _, base in
            try await withTemporaryDirectory { folder in
                let configuration = ResumableURLSessionConfiguration.default
                configuration.stateDirectory = folder.appendingPathComponent("state")
                let queue = OperationQueue()
                queue.name = "the app's delegate queue"
                queue.maxConcurrentOperationCount = 1
                let recorder = DelegateRecorder()
                let session = ResumableURLSession(configuration: configuration, delegate: recorder, delegateQueue: queue)
                defer { session.invalidateAndCancel() }
                #expect(session.delegateQueue === queue)
                let tasks = [1001, 1002, 1003].map { session.downloadTask(with: previewURL(base, $0)) }
                tasks.forEach { $0.resume() }
                for task in tasks { #expect(await recorder.completion(of: task) == nil) }
                #expect(recorder.everyCall(ranOn: queue))
                #expect(!recorder.everyCall(ranOn: OperationQueue.main))
            }
        }
    }

    @Test("pause with cancel(byProducingResumeData:), resume in the same process: only the rest is fetched (206)")
    func pauseAndResume() async throws {
        try await withDemoCatalog { catalog, base in
            let preview = try #require(await catalog.preview(for: 1005))
            let size = Int64(preview.data.count)
            catalog.setFaults(PreviewFaults(bytesPerSecond: 1_000_000), for: 1005)
            // Held there, so the cancel finds it unfinished however slow the machine.
            let held = 400_000
            catalog.hold(1005, atByte: held)
            defer { catalog.release(1005) }
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    let task = session.downloadTask(with: previewURL(base, 1005))
                    task.taskDescription = "Track 1005"
                    task.resume()
                    await recorder.wrote(task, atLeast: 200_000)
                    let data = try #require(
                        await withCheckedContinuation { continuation in
                            task.cancel(byProducingResumeData: { continuation.resume(returning: $0) })
                        })
                    #expect(data.count < 1024)
                    let error = try #require(await recorder.completion(of: task) as? URLError)
                    #expect(error.code == .cancelled)
                    #expect(error.downloadTaskResumeData == data)
                    #expect(task.state == .completed)

                    catalog.setFaults(PreviewFaults(), for: 1005)
                    catalog.release(1005)
                    let resumed = session.downloadTask(withResumeData: data)
                    #expect(resumed.originalRequest?.url == previewURL(base, 1005))
                    resumed.resume()
                    #expect(await recorder.completion(of: resumed) == nil)
                    let fileresumed = try #require(recorder.file(of: resumed))
                    #expect(sha256Hex(fileresumed) == sha256Hex(preview.data))
                    guard
                        case .resumed(_, let offset, let expected) = await recorder.first(where: {
                            if case .resumed(resumed.taskIdentifier, _, _) = $0 { true } else { false }
                        })
                    else {
                        Issue.record("no didResumeAtOffset")
                        return
                    }
                    #expect(offset >= 200_000)
                    #expect(expected == size)
                    // Progress continues from the offset and never goes back.
                    let progress = recorder.progress(of: resumed)
                    #expect(progress.first.map { $0.total - $0.written } == offset)
                    #expect(progress.last?.total == size)
                    #expect((resumed.response as? HTTPURLResponse)?.statusCode == 206)
                    // The server's own log: the second request asked for the rest and got a 206.
                    let last = try #require(catalog.previewRequests.last { $0.trackId == 1005 })
                    #expect(last.status == 206)
                    #expect(last.range == "bytes=\(offset)-")
                    #expect(offset <= held)
                    #expect(catalog.bytesSent(for: 1005) <= Int(size) + 128 * 1024)
                }
            }
        }
    }

    @Test("the resource replaced while paused comes back whole, announced as a resume at offset 0")
    func replacedWhilePaused() async throws {
        try await withDemoCatalog { catalog, base in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 1_000_000), for: 1006)
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    let task = session.downloadTask(with: previewURL(base, 1006))
                    task.resume()
                    await recorder.wrote(task, atLeast: 100_000)
                    let data = try #require(
                        await withCheckedContinuation { continuation in
                            task.cancel(byProducingResumeData: { continuation.resume(returning: $0) })
                        })
                    catalog.setFaults(PreviewFaults(), for: 1006)
                    let old = try #require(await catalog.preview(for: 1006)).data
                    catalog.changeContent(of: 1006)
                    let new = try #require(await catalog.preview(for: 1006)).data
                    #expect(old != new)

                    let resumed = session.downloadTask(withResumeData: data)
                    resumed.resume()
                    #expect(await recorder.completion(of: resumed) == nil)
                    let fileresumed = try #require(recorder.file(of: resumed))
                    #expect(sha256Hex(fileresumed) == sha256Hex(new))
                    guard
                        case .resumed(_, let offset, _) = await recorder.first(where: {
                            if case .resumed(resumed.taskIdentifier, _, _) = $0 { true } else { false }
                        })
                    else {
                        Issue.record("no didResumeAtOffset")
                        return
                    }
                    #expect(offset == 0)
                    let last = try #require(catalog.previewRequests.last { $0.trackId == 1006 })
                    #expect(last.status == 200)
                    #expect(last.ifRange != nil)
                }
            }
        }
    }

    @Test("suspend keeps the bytes; resume continues with a range request")
    func suspendAndResume() async throws {
        try await withDemoCatalog { catalog, base in
            let preview = try #require(await catalog.preview(for: 1007))
            catalog.setFaults(PreviewFaults(bytesPerSecond: 1_000_000), for: 1007)
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    let task = session.downloadTask(with: previewURL(base, 1007))
                    task.resume()
                    await recorder.wrote(task, atLeast: 100_000)
                    task.suspend()
                    #expect(task.state == .suspended)
                    #expect(await session.allTasks.map(\.taskIdentifier) == [task.taskIdentifier])
                    catalog.setFaults(PreviewFaults(), for: 1007)
                    task.resume()
                    #expect(await recorder.completion(of: task) == nil)
                    let filetask = try #require(recorder.file(of: task))
                    #expect(sha256Hex(filetask) == sha256Hex(preview.data))
                    let requests = catalog.previewRequests.filter { $0.trackId == 1007 }
                    #expect(requests.last?.status == 206)
                    let totals = recorder.progress(of: task).map(\.total)
                    #expect(totals == totals.sorted() && Set(totals).count == totals.count)
                }
            }
        }
    }

    @Test("a failure after the retries carries resume data in the error; it finishes the file")
    func failureCarriesResumeData() async throws {
        try await withDemoCatalog { catalog, base in
            let preview = try #require(await catalog.preview(for: 1008))
            catalog.setFaults(PreviewFaults(dropAfterBytes: 150_000, drops: 1), for: 1008)
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder, { $0.retryPolicy = RetryPolicy(maxAttemptsWithoutProgress: 1) }) {
                    session, recorder in
                    let task = session.downloadTask(with: previewURL(base, 1008))
                    task.resume()
                    let error = try #require(await recorder.completion(of: task) as? URLError)
                    #expect(error.code == .networkConnectionLost)
                    let data = try #require(error.downloadTaskResumeData)
                    let resumed = session.downloadTask(withResumeData: data)
                    resumed.resume()
                    #expect(await recorder.completion(of: resumed) == nil)
                    let fileresumed = try #require(recorder.file(of: resumed))
                    #expect(sha256Hex(fileresumed) == sha256Hex(preview.data))
                    #expect(catalog.previewRequests.last { $0.trackId == 1008 }?.range == "bytes=150000-")
                }
            }
        }
    }

    @Test("a 404 fails the task with the server's status in its response and no resume data")
    func notFound() async throws {
        try await withDemoCatalog { catalog, base in
            catalog.setFaults(PreviewFaults(failure: (404, 5)), for: 1009)
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    let task = session.downloadTask(with: previewURL(base, 1009))
                    task.resume()
                    let error = try #require(await recorder.completion(of: task) as? URLError)
                    #expect(error.code == .badServerResponse)
                    #expect(error.downloadTaskResumeData == nil)
                    #expect(error.localizedDescription.contains("404"))
                    #expect((task.response as? HTTPURLResponse)?.statusCode == 404)
                    #expect(filesIn(folder.appendingPathComponent("state")).isEmpty)
                }
            }
        }
    }

    @Test("async download(from:), cancelled by its Swift task, throws resume data that download(resumeFrom:) finishes")
    func asyncConveniences() async throws {
        try await withDemoCatalog { catalog, base in
            let preview = try #require(await catalog.preview(for: 1011))
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    let (file, response) = try await session.download(from: previewURL(base, 1011))
                    defer { try? FileManager.default.removeItem(at: file) }
                    #expect((response as? HTTPURLResponse)?.statusCode == 200)
                    #expect(sha256Hex(try contents(file)) == sha256Hex(preview.data))

                    catalog.setFaults(PreviewFaults(bytesPerSecond: 500_000), for: 1011)
                    let download = Task { try await session.download(from: previewURL(base, 1011)) }
                    // Progress still reaches the session's delegate: cancel the Swift task once bytes are on disk.
                    _ = await recorder.first { if case .wrote(2, _, let total, _) = $0 { total >= 100_000 } else { false } }
                    download.cancel()
                    let thrown = await #expect(throws: URLError.self) { try await download.value }
                    #expect(thrown?.code == .cancelled)
                    let data = try #require(thrown?.downloadTaskResumeData)
                    catalog.setFaults(PreviewFaults(), for: 1011)
                    let (resumed, resumedResponse) = try await session.download(resumeFrom: data)
                    defer { try? FileManager.default.removeItem(at: resumed) }
                    #expect((resumedResponse as? HTTPURLResponse)?.statusCode == 206)
                    #expect(sha256Hex(try contents(resumed)) == sha256Hex(preview.data))
                }
            }
        }
    }
}
