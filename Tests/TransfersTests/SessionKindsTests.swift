import DemoCatalog
import Foundation
import Hummingbird
import Synchronization
import TestSupport
import Testing
import Transfers

@testable import TransferEngine

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `.shared`, `.ephemeral` and Apple's error bodies on request.
@Suite("Session kinds and error bodies", .timeLimit(.minutes(1)))
struct SessionKindsTests {
    @Test("ResumableURLSession.shared: one session, the default configuration, no delegate; its data task answers")
    func shared() async throws {
        try await withDemoCatalog { _, base in
            #expect(ResumableURLSession.shared === ResumableURLSession.shared)
            #expect(ResumableURLSession.shared.delegate == nil)
            #expect(ResumableURLSession.shared.configuration.identifier == nil)
            let (data, response) = try await ResumableURLSession.shared.data(from: URL(string: "\(base)/lookup?id=1001")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect((object?["results"] as? [[String: Any]])?.first?["trackId"] as? Int == 1001)
        }
    }

    @Test("an engine whose journal is in memory writes none: its folder holds the lock alone, and the download is whole")
    func journalInMemory() async throws {
        try await withDemoCatalog { catalog, base in
            var configuration = TransferSessionConfiguration()
            configuration.keepsJournalInMemory = true
            try await withSession(configuration) { session, folder in
                let destination = folder.appendingPathComponent("1001.wav")
                let id = try await session.start(url: previewURL(base, 1001), destination: destination)
                #expect(try await session.wait(for: id).state == .completed)
                #expect(try await catalog.preview(for: 1001)?.data == contents(destination))
                #expect(filesIn(folder.appendingPathComponent("session")) == ["test.lock"])
            }
        }
    }

    @Test(".ephemeral: downloads as a default session does; a cancelled task's resume data continues in another session")
    func ephemeral() async throws {
        try await withDemoCatalog { catalog, base in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: 1002)
            try await withTemporaryDirectory { folder in
                let configuration = ResumableURLSessionConfiguration.ephemeral
                #expect(configuration.isEphemeral && configuration.identifier == nil)
                configuration.stateDirectory = folder
                let recorder = DelegateRecorder()
                let session = ResumableURLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
                defer { session.invalidateAndCancel() }
                let task = session.downloadTask(with: previewURL(base, 1002))
                task.resume()
                await recorder.wrote(task, atLeast: 100_000)
                let data = try #require(await task.cancelByProducingResumeData())
                try await withResumableSession(in: folder, { $0.stateDirectory = folder }) { other, otherRecorder in
                    catalog.setFaults(PreviewFaults(), for: 1002)
                    let resumed = other.downloadTask(withResumeData: data)
                    resumed.resume()
                    #expect(await otherRecorder.completion(of: resumed) == nil)
                    #expect(await catalog.preview(for: 1002)?.data == otherRecorder.file(of: resumed))
                    guard
                        case .resumed(_, let offset, _)? = otherRecorder.calls.first(where: {
                            if case .resumed = $0 { true } else { false }
                        })
                    else {
                        Issue.record("no didResumeAtOffset")
                        return
                    }
                    #expect(offset >= 100_000)
                }
            }
        }
    }

    @Test(
        ".ephemeral writes nothing of its own: while it downloads its state folder holds the partial file alone, after it nothing"
    )
    func ephemeralLeavesNothing() async throws {
        try await withDemoCatalog { catalog, base in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: 1001)
            try await withTemporaryDirectory { folder in
                func files() -> [String] {
                    let all = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
                    return all.filter {
                        var isFolder: ObjCBool = false
                        let path = folder.appendingPathComponent($0).path
                        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
                    }
                }
                let configuration = ResumableURLSessionConfiguration.ephemeral
                configuration.stateDirectory = folder
                let recorder = DelegateRecorder()
                let session = ResumableURLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
                defer { session.invalidateAndCancel() }
                let task = session.downloadTask(with: previewURL(base, 1001))
                task.resume()
                await recorder.wrote(task, atLeast: 100_000)
                // The partial file is the download itself (resume data points at it); nothing else.
                let during = files()
                #expect(during.count == 1 && during[0].hasSuffix(".part"), "in the state folder while downloading: \(during)")
                // Nor a journal where a default session keeps its own (the temporary folder).
                let named = Self.filesNaming(previewURL(base, 1001).absoluteString)
                #expect(named.isEmpty, "a journal on disk: \(named)")
                catalog.setFaults(PreviewFaults(), for: 1001)
                #expect(await recorder.completion(of: task) == nil)
                #expect(sameBytes(recorder.file(of: task), await catalog.preview(for: 1001)?.data))
                #expect(files() == [], "in the state folder after: \(files())")
            }
        }
    }

    /// Files of default sessions' journals (`resumable-urlsession-*` in the temporary folder)
    /// that hold `text`: a URL only one test downloads tells whose journal is on disk.
    static func filesNaming(_ text: String) -> [String] {
        let temporary = FileManager.default.temporaryDirectory
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        return folders.filter { $0.hasPrefix("resumable-urlsession-") }.flatMap { folder in
            let files =
                (try? FileManager.default.contentsOfDirectory(atPath: temporary.appendingPathComponent(folder).path)) ?? []
            return files.map { "\(folder)/\($0)" }
        }.filter { name in
            guard let data = FileManager.default.contents(atPath: temporary.appendingPathComponent(name).path) else {
                return false
            }
            return data.range(of: Data(text.utf8)) != nil
        }
    }

    /// A server: /gone is a 404 with a page; /busy is a 429 the first time, then the file.
    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/gone") { _, _ in
            Response(
                status: .notFound, headers: [.contentType: "text/html"],
                body: .init(byteBuffer: ByteBuffer(string: "<h1>Not here</h1>")))
        }
        let asked = Mutex(0)
        router.get("/busy") { _, _ -> Response in
            let first = asked.withLock { count in
                defer { count += 1 }
                return count == 0
            }
            if first { return Response(status: .tooManyRequests, headers: [.retryAfter: "0"]) }
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "the file")))
        }
        return router
    }

    @Test(
        "deliversHTTPErrorBodies: a 404's page is the file, with the status on the response; off, the task fails; a 429 is still retried"
    )
    func errorBodies() async throws {
        try await withTestServer(router()) { base in
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder, { $0.deliversHTTPErrorBodies = true }) { session, recorder in
                    let gone = session.downloadTask(with: base.appendingPathComponent("gone"))
                    gone.resume()
                    #expect(await recorder.completion(of: gone) == nil)
                    #expect(recorder.file(of: gone) == Data("<h1>Not here</h1>".utf8))
                    #expect((gone.response as? HTTPURLResponse)?.statusCode == 404)
                    let busy = session.downloadTask(with: base.appendingPathComponent("busy"))
                    busy.resume()
                    #expect(await recorder.completion(of: busy) == nil)
                    #expect(recorder.file(of: busy) == Data("the file".utf8))
                }
                try await withResumableSession(in: folder) { session, recorder in
                    let gone = session.downloadTask(with: base.appendingPathComponent("gone"))
                    gone.resume()
                    let error = await recorder.completion(of: gone) as? URLError
                    #expect(error?.code == .badServerResponse && error?.downloadTaskResumeData == nil)
                    #expect(recorder.file(of: gone) == nil)
                }
            }
        }
    }
}
