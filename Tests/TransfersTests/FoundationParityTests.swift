import Foundation
import Hummingbird
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Behaviours swift-corelibs-foundation's own URLSession tests check, held by `ResumableURLSession`.
@Suite("URLSession parity", .timeLimit(.minutes(1)))
struct FoundationParityTests {
    private func session(_ folder: URL, headers: [String: String]? = nil) -> ResumableURLSession {
        let configuration = ResumableURLSessionConfiguration.default
        configuration.stateDirectory = folder.appendingPathComponent("state")
        configuration.httpAdditionalHeaders = headers
        return ResumableURLSession(configuration: configuration, delegate: nil, delegateQueue: nil)
    }

    /// A server that answers the values of the `header4` fields it received, one a line.
    private func headerEcho() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/headers") { request, _ -> String in
            request.headers[values: .init("header4")!].joined(separator: "\n")
        }
        return router
    }

    @Test("a request's own header wins over the configuration's of the same name, compared without case; others are kept")
    func headerMergeIgnoresCase() async throws {
        try await withTestServer(headerEcho()) { base in
            try await withTemporaryDirectory { folder in
                let session = session(folder, headers: ["header4": "from the session"])
                defer { session.invalidateAndCancel() }
                var request = URLRequest(url: base.appendingPathComponent("headers"))
                request.setValue("from the request", forHTTPHeaderField: "Header4")
                let (data, _) = try await session.data(for: request)
                #expect(String(decoding: data, as: UTF8.self) == "from the request")
                let (kept, _) = try await session.data(from: base.appendingPathComponent("headers"))
                #expect(String(decoding: kept, as: UTF8.self) == "from the session")
            }
        }
    }

    @Test("a request's own timeoutInterval holds: 1 s to a server that answers after 3 s fails with timedOut; unset, it waits")
    func requestTimeout() async throws {
        let router = Router()
        router.get("/slow") { _, _ -> String in
            try await Task.sleep(for: .seconds(3))
            return "late"
        }
        try await withTestServer(router) { base in
            try await withTemporaryDirectory { folder in
                let session = session(folder)
                defer { session.invalidateAndCancel() }
                var request = URLRequest(url: base.appendingPathComponent("slow"))
                request.timeoutInterval = 1
                do {
                    _ = try await session.data(for: request)
                    Issue.record("the answer came after 3 s, past the request's 1 s")
                } catch {
                    #expect((error as? URLError)?.code == .timedOut, "\(error)")
                }
                let (data, _) = try await session.data(from: base.appendingPathComponent("slow"))
                #expect(String(decoding: data, as: UTF8.self) == "late")
            }
        }
    }

    @Test(
        "a download task's own timeoutInterval: silent 3 s mid-body past a 1 s limit fails with timedOut and resume data, which finishes the file; unset, it waits; bytes that keep coming are not silence"
    )
    func downloadRequestTimeout() async throws {
        let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let ranges = RequestLog<String>()
        let router = Router()
        router.get("/pausing") { request, _ in
            let range = request.headers[.range]
            ranges.append(range ?? "none")
            if let range, let offset = Int(range.dropFirst("bytes=".count).dropLast()) {
                return Response(
                    status: .partialContent,
                    headers: [.eTag: "\"v1\"", .contentRange: "bytes \(offset)-\(body.count - 1)/\(body.count)"],
                    body: .init(byteBuffer: ByteBuffer(data: body[offset...])))
            }
            return Response(
                status: .ok, headers: [.eTag: "\"v1\"", .contentLength: "\(body.count)"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(data: body.prefix(50_000)))
                    try await Task.sleep(for: .seconds(3))
                    try await writer.write(ByteBuffer(data: body.dropFirst(50_000)))
                    try await writer.finish(nil)
                })
        }
        // Slow but never silent for long: 16 pieces 250 ms apart, 4 s in all.
        router.get("/steady") { _, _ in
            Response(
                status: .ok, headers: [.contentLength: "\(body.count)"],
                body: ResponseBody { writer in
                    for piece in 0..<16 {
                        try await Task.sleep(for: .milliseconds(250))
                        try await writer.write(ByteBuffer(data: body[(piece * 12_500)..<((piece + 1) * 12_500)]))
                    }
                    try await writer.finish(nil)
                })
        }
        try await withTestServer(router) { base in
            try await withTemporaryDirectory { folder in
                try await withResumableSession(in: folder) { session, recorder in
                    var request = URLRequest(url: base.appendingPathComponent("pausing"))
                    request.timeoutInterval = 1
                    let task = session.downloadTask(with: request)
                    task.resume()
                    let error = try #require(await recorder.completion(of: task) as? URLError)
                    #expect(error.code == .timedOut, "\(error)")
                    #expect(error.localizedDescription.contains("timeoutInterval"), "\(error.localizedDescription)")
                    let data = try #require(error.downloadTaskResumeData, "a timed-out download keeps its bytes")
                    let resumed = session.downloadTask(withResumeData: data)
                    resumed.resume()
                    #expect(await recorder.completion(of: resumed) == nil)
                    let resumedFile = try #require(recorder.file(of: resumed))
                    #expect(sameBytes(resumedFile, body))
                    // (With a range when the validator was journaled before the silence: usually, not always.)
                    #expect(ranges.all.count == 2, "\(ranges.all)")
                    // Unset, the 3 s of silence are waited out (the configuration's 60 s hold).
                    let patient = session.downloadTask(with: base.appendingPathComponent("pausing"))
                    patient.resume()
                    #expect(await recorder.completion(of: patient) == nil)
                    let patientFile = try #require(recorder.file(of: patient))
                    #expect(sameBytes(patientFile, body))
                    // Bytes that keep coming for 4 s are not silence, with a limit of 3 s. (Run after the
                    // first seconds of the suite, when a busy test process can starve even a live server.)
                    var steadyRequest = URLRequest(url: base.appendingPathComponent("steady"))
                    steadyRequest.timeoutInterval = 3
                    let steady = session.downloadTask(with: steadyRequest)
                    steady.resume()
                    let steadyEnd = await recorder.completion(of: steady)
                    #expect(steadyEnd == nil, "\(String(describing: steadyEnd))")
                    let steadyFile = try #require(recorder.file(of: steady))
                    #expect(sameBytes(steadyFile, body))
                }
            }
        }
    }

    @Test("a request without a URL fails with unsupportedURL, as Foundation's does")
    func noURL() async throws {
        try await withTemporaryDirectory { folder in
            let session = session(folder)
            defer { session.invalidateAndCancel() }
            var request = URLRequest(url: URL(string: "http://127.0.0.1:9/")!)
            request.url = nil
            let error = await withCheckedContinuation { continuation in
                session.dataTask(with: request) { continuation.resume(returning: $2) }.resume()
            }
            #expect((error as? URLError)?.code == .unsupportedURL, "\(String(describing: error))")
        }
    }

    @Test("a port out of range fails the task with a URLError instead of ending the process: data and download tasks")
    func portOutOfRange() async throws {
        try await withTemporaryDirectory { folder in
            let session = session(folder)
            defer { session.invalidateAndCancel() }
            let url = URL(string: "http://127.0.0.1:999999/preview.m4a")!
            await #expect(throws: URLError.self) { _ = try await session.data(from: url) }
            let error = await withCheckedContinuation { continuation in
                session.downloadTask(with: url) { continuation.resume(returning: $2) }.resume()
            }
            #expect(error is URLError, "\(String(describing: error))")
        }
    }
}
