import DemoCatalog
import Foundation
import Hummingbird
import TestSupport
import Testing

@testable import TransferEngine

/// Downloads over a real socket from the DemoCatalog (and small test servers), checked byte for byte.
@Suite("Downloads over the wire", .timeLimit(.minutes(1)))
struct DownloadTests {
    @Test("a plain download lands byte-exact, with no partial file left")
    func plain() async throws {
        try await withDemoCatalog { catalog, url in
            try await withSession { session, folder in
                let destination = folder.appendingPathComponent("song.wav")
                let id = try await session.start(url: previewURL(url, 1001), destination: destination)
                let done = try await session.wait(for: id)
                #expect(done.state == .completed)
                let expected = try #require(await catalog.preview(for: 1001)).data
                #expect(sha256Hex(try contents(destination)) == sha256Hex(expected))
                #expect(done.receivedBytes == Int64(expected.count))
                #expect(done.expectedBytes == Int64(expected.count))
                #expect(!FileManager.default.fileExists(atPath: destination.path + ".part"))
            }
        }
    }

    @Test("pause at about half keeps the partial file; resume fetches only the rest, validated by If-Range")
    func pauseAndResume() async throws {
        try await withDemoCatalog { catalog, url in
            let preview = try #require(await catalog.preview(for: 1002))
            let size = Int64(preview.data.count)
            catalog.setFaults(PreviewFaults(bytesPerSecond: 2_000_000), for: 1002)
            // Held short of the end, so the pause finds it unfinished however slow the machine.
            catalog.hold(1002, atByte: preview.data.count * 3 / 4)
            defer { catalog.release(1002) }
            try await withSession { session, folder in
                let events = EventRecorder(session.events())
                let destination = folder.appendingPathComponent("song.wav")
                let id = try await session.start(url: previewURL(url, 1002), destination: destination)
                await events.received(id, atLeast: size / 2)
                let resumeData = try await session.pause(id)
                #expect(await session.transfer(id)?.state == .paused)
                #expect(resumeData.bytesOnDisk >= size / 2 && resumeData.bytesOnDisk < size)
                #expect(resumeData.validator.etag == preview.etag)
                let partial = try contents(resumeData.partialFile)
                #expect(Int64(partial.count) == resumeData.bytesOnDisk)
                #expect(sameBytes(partial, preview.data.prefix(partial.count)))
                #expect(!FileManager.default.fileExists(atPath: destination.path))

                catalog.setFaults(PreviewFaults(), for: 1002)
                catalog.release(1002)
                try await session.resume(id)
                #expect(try await session.wait(for: id).state == .completed)
                #expect(sha256Hex(try contents(destination)) == sha256Hex(preview.data))
                let last = try #require(catalog.previewRequests.last { $0.trackId == 1002 })
                #expect(last.range == "bytes=\(resumeData.bytesOnDisk)-")
                #expect(last.ifRange == preview.etag)
                #expect(last.status == 206)
                #expect(Int64(last.bodyBytes) == size - resumeData.bytesOnDisk)
            }
        }
    }

    @Test("resume data persisted and handed to another session finishes the download")
    func resumeDataAcrossSessions() async throws {
        try await withDemoCatalog { catalog, url in
            let preview = try #require(await catalog.preview(for: 1003))
            catalog.setFaults(PreviewFaults(bytesPerSecond: 2_000_000), for: 1003)
            catalog.hold(1003, atByte: 600_000)  // the pause finds it unfinished however slow the machine
            defer { catalog.release(1003) }
            try await withTemporaryDirectory { folder in
                let destination = folder.appendingPathComponent("song.wav")
                let encoded: Data = try await withSession(folder: folder) { session, _ in
                    let events = EventRecorder(session.events())
                    let id = try await session.start(url: previewURL(url, 1003), destination: destination)
                    await events.received(id, atLeast: 200_000)
                    return try await session.pause(id).encoded()
                }
                catalog.setFaults(PreviewFaults(), for: 1003)
                catalog.release(1003)
                try await withSession(folder: folder.appendingPathComponent("other")) { session, _ in
                    let id = try await session.resume(with: ResumeData(encoded: encoded))
                    #expect(try await session.wait(for: id).state == .completed)
                }
                #expect(sha256Hex(try contents(destination)) == sha256Hex(preview.data))
                #expect(catalog.previewRequests.last { $0.trackId == 1003 }?.status == 206)
            }
        }
    }

    @Test("when the content changed before the resume, the new version is downloaded whole, never spliced")
    func contentChanged() async throws {
        try await withDemoCatalog { catalog, url in
            let old = try #require(await catalog.preview(for: 1004))
            catalog.setFaults(PreviewFaults(bytesPerSecond: 2_000_000), for: 1004)
            catalog.hold(1004, atByte: 600_000)  // the pause finds it unfinished however slow the machine
            defer { catalog.release(1004) }
            try await withSession { session, folder in
                let events = EventRecorder(session.events())
                let destination = folder.appendingPathComponent("song.wav")
                let id = try await session.start(url: previewURL(url, 1004), destination: destination)
                await events.received(id, atLeast: 300_000)
                _ = try await session.pause(id)
                catalog.changeContent(of: 1004)
                catalog.setFaults(PreviewFaults(), for: 1004)
                catalog.release(1004)
                let new = try #require(await catalog.preview(for: 1004))
                #expect(new.etag != old.etag)
                try await session.resume(id)
                #expect(try await session.wait(for: id).state == .completed)
                let data = try contents(destination)
                #expect(sha256Hex(data) == sha256Hex(new.data))
                #expect(sha256Hex(data) != sha256Hex(old.data))
                let last = try #require(catalog.previewRequests.last { $0.trackId == 1004 })
                #expect(last.ifRange == old.etag)
                #expect(last.status == 200)
            }
        }
    }

    @Test("a server that ignores Range (200 every time) still gives the right file")
    func ignoresRange() async throws {
        try await withDemoCatalog { catalog, url in
            let preview = try #require(await catalog.preview(for: 1005))
            catalog.setFaults(PreviewFaults(bytesPerSecond: 2_000_000, ignoresRange: true), for: 1005)
            try await withSession { session, folder in
                let events = EventRecorder(session.events())
                let destination = folder.appendingPathComponent("song.wav")
                let id = try await session.start(url: previewURL(url, 1005), destination: destination)
                await events.received(id, atLeast: 300_000)
                _ = try await session.pause(id)
                catalog.setFaults(PreviewFaults(ignoresRange: true), for: 1005)
                try await session.resume(id)
                #expect(try await session.wait(for: id).state == .completed)
                #expect(sha256Hex(try contents(destination)) == sha256Hex(preview.data))
                let requests = catalog.previewRequests.filter { $0.trackId == 1005 }
                #expect(requests.count == 2)
                #expect(requests.last?.range != nil)
                #expect(requests.last?.status == 200)
            }
        }
    }

    @Test("a connection dropped mid-body twice: the download completes by resuming")
    func droppedTwice() async throws {
        try await withDemoCatalog { catalog, url in
            let preview = try #require(await catalog.preview(for: 1006))
            catalog.setFaults(PreviewFaults(dropAfterBytes: 300_000, drops: 2), for: 1006)
            try await withSession(TransferSessionConfiguration(retryPolicy: quickRetries)) { session, folder in
                let destination = folder.appendingPathComponent("song.wav")
                let id = try await session.start(url: previewURL(url, 1006), destination: destination)
                #expect(try await session.wait(for: id).state == .completed)
                #expect(sha256Hex(try contents(destination)) == sha256Hex(preview.data))
                let requests = catalog.previewRequests.filter { $0.trackId == 1006 }
                #expect(requests.count == 3)
                #expect(requests[0].range == nil)
                // Each retry asks only for what is missing: the offsets grow, one cut's worth at most.
                let offsets = requests.dropFirst().compactMap { $0.range.flatMap { Int($0.dropFirst(6).dropLast()) } }
                #expect(offsets.count == 2)
                #expect(offsets[0] > 0 && offsets[0] <= 300_000)
                #expect(offsets[1] > offsets[0] && offsets[1] <= offsets[0] + 300_000)
                #expect(requests.dropFirst().allSatisfy { $0.status == 206 && $0.ifRange == preview.etag })
            }
        }
    }

    @Test(
        "503 with Retry-After, twice: each wait reported as retrying, then completes (the wait itself is checked on the injected clock in PromiseTests)"
    )
    func unavailable() async throws {
        try await withDemoCatalog { catalog, url in
            let preview = try #require(await catalog.preview(for: 1007))
            catalog.setFaults(PreviewFaults(unavailableResponses: 2, retryAfterSeconds: 1), for: 1007)
            try await withSession(TransferSessionConfiguration(retryPolicy: quickRetries)) { session, folder in
                let events = EventRecorder(session.events())
                let destination = folder.appendingPathComponent("song.wav")
                let id = try await session.start(url: previewURL(url, 1007), destination: destination)
                #expect(try await session.wait(for: id).state == .completed)
                #expect(sha256Hex(try contents(destination)) == sha256Hex(preview.data))
                #expect(catalog.previewRequests.filter { $0.trackId == 1007 }.map(\.status) == [503, 503, 200])
                // Events arrive in order: once the completion is recorded, so is every wait before it.
                _ = await events.first { if case .completed(id, _) = $0 { true } else { false } }
                let waits = events.events.compactMap { event -> String? in
                    guard case .retrying(id, let reason, let delay) = event else { return nil }
                    return "\(reason) / \(delay)"
                }
                #expect(waits == ["the server answered HTTP 503 / 1.0 seconds", "the server answered HTTP 503 / 1.0 seconds"])
            }
        }
    }

    @Test("404 fails at once with the reason and leaves no file")
    func notFound() async throws {
        try await withDemoCatalog { _, url in
            try await withSession(TransferSessionConfiguration(retryPolicy: quickRetries)) { session, folder in
                let events = EventRecorder(session.events())
                let destination = folder.appendingPathComponent("downloads/song.wav")
                let id = try await session.start(url: previewURL(url, 999_999), destination: destination)
                let done = try await session.wait(for: id)
                #expect(done.state == .failed)
                #expect(done.failure?.isPermanent == true)
                #expect(done.failure?.message.contains("HTTP 404 (not found)") == true)
                #expect(filesIn(folder.appendingPathComponent("downloads")).isEmpty)
                let failed = await events.first { if case .failed(id, _) = $0 { true } else { false } }
                #expect(failed != nil)
            }
        }
    }

    @Test("a server that refuses connections: retried, then failed with a reason that names it")
    func refused() async throws {
        try await withRefusingPort { url in
            try await withSession(TransferSessionConfiguration(retryPolicy: quickRetries)) { session, folder in
                let id = try await session.start(
                    url: url.appendingPathComponent("previews/1.wav"), destination: folder.appendingPathComponent("song.wav"))
                let done = try await session.wait(for: id)
                #expect(done.state == .failed)
                #expect(done.failure?.isPermanent == false)
                let message = try #require(done.failure?.message)
                #expect(message.contains("127.0.0.1:\(url.port!)"), "\(message)")
                #expect(message.lowercased().contains("refused"), "\(message)")
            }
        }
    }

    @Test(
        "URLs that are not http(s) are refused at once",
        arguments: ["ftp://example.com/a", "file:///etc/passwd", "http:///nohost"])
    func invalidURL(url: String) async throws {
        try await withSession { session, folder in
            await #expect {
                try await session.start(url: URL(string: url)!, destination: folder.appendingPathComponent("x"))
            } throws: { ($0 as? TransferError)?.code == .invalidURL }
            #expect(await session.transfers().isEmpty)
        }
    }

    @Test("a body shorter than announced is never marked done")
    func shortBody() async throws {
        let router = Router()
        router.get("/short") { _, _ in
            Response(
                status: .ok, headers: [.contentLength: "1000", .eTag: "\"s\""],
                body: ResponseBody(contentLength: 1000) { writer in
                    try await writer.write(ByteBuffer(repeating: 7, count: 600))
                    throw CancellationError()  // cut the connection after 600 of 1000 bytes
                })
        }
        try await withTestServer(router) { url in
            try await withSession(TransferSessionConfiguration(retryPolicy: quickRetries)) { session, folder in
                let destination = folder.appendingPathComponent("short.bin")
                let id = try await session.start(url: url.appendingPathComponent("short"), destination: destination)
                let done = try await session.wait(for: id)
                #expect(done.state == .failed)
                #expect(done.failure?.isPermanent == false)
                #expect(!FileManager.default.fileExists(atPath: destination.path))
                #expect(done.failure?.message.contains("closed the connection") == true, "\(done.failure?.message ?? "")")
                // What is kept for a later resume is never more than what was sent.
                #expect(PartialFile.length(at: destination.path + ".part") <= 600)
            }
        }
    }

    @Test("cancel deletes the partial file and forgets the transfer")
    func cancel() async throws {
        try await withDemoCatalog { catalog, url in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 500_000), for: 1008)
            try await withSession { session, folder in
                let events = EventRecorder(session.events())
                let destination = folder.appendingPathComponent("song.wav")
                let id = try await session.start(url: previewURL(url, 1008), destination: destination)
                await events.received(id, atLeast: 50_000)
                try await session.cancel(id)
                #expect(await session.transfer(id) == nil)
                #expect(filesIn(folder).filter { $0.hasPrefix("song") }.isEmpty)
                #expect(await events.seen(.stateChanged(id, .cancelled)))
            }
        }
    }

    @Test("a stalled transfer (no data for the stall timeout) is retried and completes from where it stopped")
    func stall() async throws {
        let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await withTemporaryDirectory { folder in
            let destination = folder.appendingPathComponent("stall.bin")
            let requests = RequestLog<String?>()
            // What was on the client's disk when the retry arrived: where it must resume.
            let onDiskAtRetry = RequestLog<Int64>()
            let release = Gate()
            let router = Router()
            router.get("/stall") { request, _ -> Response in
                requests.append(request.headers[.range])
                let first = requests.count == 1
                if !first { onDiskAtRetry.append(PartialFile.length(at: destination.path + ".part")) }
                let range = request.headers[.range].flatMap { Int($0.dropFirst(6).dropLast()) } ?? 0
                var headers: HTTPFields = [.eTag: "\"stall\"", .contentLength: String(body.count - range)]
                if range > 0 { headers[.contentRange] = "bytes \(range)-\(body.count - 1)/\(body.count)" }
                return Response(
                    status: range > 0 ? .partialContent : .ok, headers: headers,
                    body: ResponseBody(contentLength: body.count - range) { writer in
                        if first {
                            try await writer.write(ByteBuffer(bytes: body.prefix(50_000)))
                            // Once those bytes are on the client's disk, send nothing more: a stall.
                            while PartialFile.length(at: destination.path + ".part") < 50_000 {
                                try await Task.sleep(for: .milliseconds(5))
                            }
                            await release.wait()
                            throw CancellationError()
                        }
                        try await writer.write(ByteBuffer(bytes: body[range...]))
                        try await writer.finish(nil)
                    })
            }
            try await withTestServer(router) { url in
                defer { release.open() }
                // Long enough, and retried often enough, that a busy machine (the whole suite runs in
                // parallel, on two cores in CI) does not make the retries look stalled too.
                let retries = RetryPolicy(
                    maxAttemptsWithoutProgress: 8, baseDelay: .milliseconds(20), maxDelay: .milliseconds(100))
                let configuration = TransferSessionConfiguration(retryPolicy: retries, stallTimeout: .seconds(4))
                try await withSession(configuration, folder: folder) { session, _ in
                    let id = try await session.start(url: url.appendingPathComponent("stall"), destination: destination)
                    let done = try await session.wait(for: id)
                    #expect(done.state == .completed, "\(done.failure?.message ?? "")")
                    #expect(try contents(destination) == body)
                    // Usually one retry from all 50,000 bytes; on a loaded machine a stall may be
                    // noticed sooner, or twice. Each retry asks for the rest from what was on disk.
                    let all = requests.all
                    #expect(all.first == .some(nil) && all.count >= 2, "\(all)")
                    for (range, onDisk) in zip(all.dropFirst(), onDiskAtRetry.all) {
                        #expect(range == (onDisk > 0 ? "bytes=\(onDisk)-" : nil), "\(all) \(onDiskAtRetry.all)")
                    }
                }
            }
        }
    }
}
