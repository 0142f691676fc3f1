import DemoCatalog
import Foundation
import Hummingbird
import TestSupport
import Testing

@testable import TransferEngine
@testable import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cancelling, timing out and invalidating, as Apple documents them.
@Suite("ResumableURLSession lifecycle", .timeLimit(.minutes(1)))
struct ResumableURLSessionLifecycleTests {
    @Test("cancel() deletes the bytes and completes with URLError.cancelled and no resume data")
    func cancel() async throws {
        try await withDemoCatalog { catalog, base in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 500_000), for: 1017)
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    let task = session.downloadTask(with: previewURL(base, 1017))
                    task.resume()
                    await recorder.wrote(task, atLeast: 50_000)
                    task.cancel()
                    #expect(task.state == .canceling)
                    let error = try #require(await recorder.completion(of: task) as? URLError)
                    #expect(error.code == .cancelled)
                    #expect(error.downloadTaskResumeData == nil)
                    #expect(task.state == .completed)
                    #expect(filesIn(folder.appendingPathComponent("state")).isEmpty)
                    // A second cancel, and resume data asked of an ended task, change nothing.
                    task.cancel()
                    let data = await withCheckedContinuation { continuation in
                        task.cancel(byProducingResumeData: { continuation.resume(returning: $0) })
                    }
                    #expect(data == nil)
                }
            }
        }
    }

    @Test("timeoutIntervalForResource ends a slow download with timedOut, carrying resume data")
    func resourceTimeout() async throws {
        try await withDemoCatalog { catalog, base in
            // About 13 s for the whole preview at this rate; the limit is a fraction of that.
            catalog.setFaults(PreviewFaults(bytesPerSecond: 100_000), for: 1018)
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder, { $0.timeoutIntervalForResource = 0.5 }) { session, recorder in
                    let task = session.downloadTask(with: previewURL(base, 1018))
                    task.resume()
                    let error = try #require(await recorder.completion(of: task) as? URLError)
                    #expect(error.code == .timedOut)
                    #expect(error.downloadTaskResumeData != nil)
                }
            }
        }
    }

    @Test("a download that starts over (the server stops honouring ranges) never reports progress going back")
    func restartNeverGoesBack() async throws {
        try await withDemoCatalog { catalog, base in
            let preview = try #require(await catalog.preview(for: 1023))
            catalog.setFaults(
                PreviewFaults(bytesPerSecond: 2_000_000, dropAfterBytes: 400_000, drops: 1, ignoresRange: true), for: 1023)
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder, { $0.retryPolicy = quickRetries }) { session, recorder in
                    let task = session.downloadTask(with: previewURL(base, 1023))
                    task.resume()
                    #expect(await recorder.completion(of: task) == nil)
                    #expect(sameBytes(recorder.file(of: task), preview.data))
                    #expect(catalog.previewRequests.filter { $0.trackId == 1023 }.map(\.status) == [200, 200])
                    let totals = recorder.progress(of: task).map(\.total)
                    #expect(totals == totals.sorted() && Set(totals).count == totals.count, "\(totals)")
                    #expect(totals.last == Int64(preview.data.count))
                }
            }
        }
    }

    @Test("finishTasksAndInvalidate lets running tasks finish, refuses new ones, then reports invalidation once")
    func finishAndInvalidate() async throws {
        try await withDemoCatalog { catalog, base in
            let preview = try #require(await catalog.preview(for: 1019))
            try await withTemporaryDirectory { folder in
                let configuration = ResumableURLSessionConfiguration.default
                configuration.stateDirectory = folder
                let recorder = DelegateRecorder()
                let session = ResumableURLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
                let task = session.downloadTask(with: previewURL(base, 1019))
                task.resume()
                session.finishTasksAndInvalidate()
                let late = session.downloadTask(with: previewURL(base, 1020))
                #expect(late.state == .completed)
                #expect((late.error as? URLError)?.code == .cancelled)
                _ = await recorder.first { if case .invalid = $0 { true } else { false } }
                let file = try #require(recorder.file(of: task))
                #expect(file == preview.data)
                let order = recorder.calls.compactMap { call -> String? in
                    switch call {
                    case .finished: "finished"
                    case .completed(_, let error): error == nil ? "completed" : "failed"
                    case .invalid(let error): error == nil ? "invalid" : "invalid with error"
                    default: nil
                    }
                }
                #expect(order == ["finished", "completed", "invalid"])
                // The session lets its delegate go once that call has returned, as Foundation's
                // does: after it, on the serial delegate queue, the delegate is gone.
                await withCheckedContinuation { done in session.delegateQueue.addOperation { done.resume() } }
                #expect(session.delegate == nil)
            }
        }
    }
}

/// A server that sends a body slowly and without validators (no ETag, no Last-Modified).
private func withUnvalidatedServer<T>(size: Int, _ body: (URL, Data) async throws -> T) async throws -> T {
    let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    let router = Router()
    router.get("/plain.bin") { _, _ -> Response in
        Response(
            status: .ok, headers: [.contentLength: "\(size)", .contentType: "application/octet-stream"],
            body: ResponseBody(contentLength: size) { writer in
                for start in stride(from: 0, to: size, by: 16_384) {
                    try await writer.write(ByteBuffer(bytes: data[start..<min(start + 16_384, size)]))
                    try await Task.sleep(for: .milliseconds(10))
                }
                try await writer.finish(nil)
            })
    }
    return try await withTestServer(router) { base in try await body(base.appendingPathComponent("plain.bin"), data) }
}

@Suite("ResumableURLSession without validators", .timeLimit(.minutes(1)))
struct UnvalidatedResumeTests {
    @Test("bytes that arrived without a validator cannot be resumed safely: nil resume data, nothing left on disk")
    func noValidator() async throws {
        try await withUnvalidatedServer(size: 1_000_000) { url, _ in
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    let task = session.downloadTask(with: url)
                    task.resume()
                    await recorder.wrote(task, atLeast: 50_000)
                    let data = await withCheckedContinuation { continuation in
                        task.cancel(byProducingResumeData: { continuation.resume(returning: $0) })
                    }
                    #expect(data == nil)
                    let error = try #require(await recorder.completion(of: task) as? URLError)
                    #expect(error.code == .cancelled)
                    #expect(error.downloadTaskResumeData == nil)
                    #expect(filesIn(folder.appendingPathComponent("state")).isEmpty)
                }
            }
        }
    }
}
