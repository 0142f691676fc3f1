import DemoCatalog
import Foundation
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A task's own delegate, as Foundation's tests use it: the per-call delegate of
/// `data(from:delegate:)` hears the body's pieces, `task.delegate` can be set before `resume()`,
/// and the session's delegate gets the calls of kinds the task's delegate is not.
@Suite("Task delegates", .timeLimit(.minutes(1)))
struct TaskDelegateTests {
    /// A delegate of no particular kind: not a data delegate.
    final class Bystander: ResumableURLSessionDelegate, Sendable {}

    private func session(_ folder: URL, delegate: (any ResumableURLSessionDelegate)?) -> ResumableURLSession {
        let configuration = ResumableURLSessionConfiguration.default
        configuration.stateDirectory = folder.appendingPathComponent("state")
        return ResumableURLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    /// Every body piece a recorder heard, joined.
    private func pieces(_ recorder: DataRecorder) -> Data {
        recorder.calls.reduce(into: Data()) { if case .data(_, let piece) = $1 { $0.append(piece) } }
    }

    @Test("data(from:delegate:): the per-call delegate hears every piece of the body it returns; the session's hears none")
    func perCallDelegate() async throws {
        try await withDemoCatalog { catalog, base in
            try await withTemporaryDirectory { folder in
                let sessionRecorder = DataRecorder()
                let session = session(folder, delegate: sessionRecorder)
                defer { session.invalidateAndCancel() }
                let own = DataRecorder()
                let (data, response) = try await session.data(from: previewURL(base, 1001), delegate: own)
                #expect((response as? HTTPURLResponse)?.statusCode == 200)
                #expect(sameBytes(data, await catalog.preview(for: 1001)?.data))
                #expect(sameBytes(pieces(own), data), "\(own.calls.count) calls")
                #expect(sessionRecorder.calls.isEmpty, "\(sessionRecorder.calls.count) calls to the session's delegate")
            }
        }
    }

    @Test("task.delegate set before resume() takes the task's calls; one of another kind leaves them to the session's")
    func settableDelegate() async throws {
        try await withDemoCatalog { catalog, base in
            try await withTemporaryDirectory { folder in
                let sessionRecorder = DataRecorder()
                let session = session(folder, delegate: sessionRecorder)
                defer { session.invalidateAndCancel() }
                let own = DataRecorder()
                let task = session.dataTask(with: previewURL(base, 1002))
                #expect(task.delegate == nil)
                task.delegate = own
                #expect(task.delegate === own)
                task.resume()
                #expect(await own.completion(of: task) == nil)
                #expect(await catalog.preview(for: 1002)?.data == own.body(of: task))
                #expect(sessionRecorder.calls.isEmpty)

                let other = session.dataTask(with: previewURL(base, 1003))
                other.delegate = Bystander()
                other.resume()
                #expect(await sessionRecorder.completion(of: other) == nil)
                #expect(await catalog.preview(for: 1003)?.data == sessionRecorder.body(of: other))
            }
        }
    }
}
