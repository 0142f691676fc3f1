import DemoCatalog
import Foundation
import TestSupport
import Testing

@testable import TransferEngine

/// Many downloads started in one call: one journal commit, the queue order kept, all or nothing.
@Suite("Batches", .timeLimit(.minutes(1)))
struct BatchTests {
    /// Every DemoCatalog track with a preview.
    static let ids = Array(1001...1039).filter { $0 != 1010 }

    @Test("a batch of every preview starts in one call, in order, and each file lands byte-exact")
    func wholeBatch() async throws {
        try await withDemoCatalog { catalog, url in
            try await withSession { session, folder in
                let requests = Self.ids.map { id in
                    TransferRequest(
                        url: previewURL(url, id), destination: folder.appendingPathComponent("\(id).wav"), tag: "\(id)")
                }
                let transfers = try await session.start(requests)
                #expect(transfers.count == Self.ids.count)
                #expect(Set(transfers).count == Self.ids.count)
                for (id, transfer) in zip(Self.ids, transfers) {
                    #expect(try await session.wait(for: transfer).state == .completed)
                    let expected = try #require(await catalog.preview(for: id)).data
                    #expect(sha256Hex(try contents(folder.appendingPathComponent("\(id).wav"))) == sha256Hex(expected))
                }
                // The server saw them asked for in the batch's order, a few at a time. None came
                // ahead of its place in the queue by more than the requests that can be in flight
                // together (four receiving, four more whose files are finishing): a request starts
                // only once the server has answered all but those, however the threads run.
                // One may come later than its place only by the time its connection took to be
                // served on a loaded machine; twice that many places catches one left for last.
                let order = catalog.previewRequests.map(\.trackId)
                #expect(order.sorted() == Self.ids)
                for (place, id) in order.enumerated() {
                    let queued = Self.ids.firstIndex(of: id)!
                    #expect(queued - place < 8, "\(id) asked for early, at \(place): \(order)")
                    #expect(place - queued < 16, "\(id) asked for late, at \(place): \(order)")
                }
                #expect(await session.transfers().map(\.tag) == Self.ids.map { "\($0)" })
                // Their progress, asked for in one call, is what landed on disk.
                let progress = await session.progress(transfers + [TransferID(rawValue: "not-a-transfer")])
                #expect(progress.count == transfers.count)
                for (id, transfer) in zip(Self.ids, transfers) {
                    let size = try contents(folder.appendingPathComponent("\(id).wav")).count
                    #expect(
                        progress[transfer]
                            == TransferProgress(
                                state: .completed, receivedBytes: Int64(size), expectedBytes: Int64(size), failure: nil))
                }
            }
        }
    }

    @Test("a batch with a request that cannot start starts none of them")
    func allOrNothing() async throws {
        try await withDemoCatalog { catalog, url in
            try await withSession { session, folder in
                let twice = folder.appendingPathComponent("same.wav")
                let requests = [
                    TransferRequest(url: previewURL(url, 1001), destination: folder.appendingPathComponent("a.wav")),
                    TransferRequest(url: previewURL(url, 1002), destination: twice),
                    TransferRequest(url: previewURL(url, 1003), destination: twice),
                ]
                await #expect(throws: TransferError.self) { try await session.start(requests) }
                let bad = [TransferRequest(url: URL(string: "ftp://example.com/x")!, destination: twice)]
                await #expect(throws: TransferError.self) { try await session.start(bad) }
                // Destinations that are not absolute file paths, given as a URL or as a path.
                for request in [
                    TransferRequest(url: previewURL(url, 1001), destination: URL(string: "http://example.com/a.wav")!),
                    TransferRequest(url: previewURL(url, 1001), destinationPath: "relative/a.wav"),
                    TransferRequest(url: previewURL(url, 1001), destinationPath: ""),
                ] {
                    let error = await #expect(throws: TransferError.self) { try await session.start([request]) }
                    #expect(error?.message.hasPrefix("the destination must be an absolute file path, not ") == true)
                }
                #expect(await session.transfers().isEmpty)
                #expect(catalog.previewRequests.isEmpty)
                let entries = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                #expect(entries == ["session"])
            }
        }
    }

    @Test("a request by path lands as one by URL; its snapshot gives the URLs and encodes them as URLs")
    func requestByPath() async throws {
        try await withDemoCatalog { catalog, url in
            try await withSession { session, folder in
                let path = folder.appendingPathComponent("1001 by path.wav").path
                let request = TransferRequest(url: previewURL(url, 1001), destinationPath: path, tag: "t")
                #expect(request.destination == URL(filePath: path, directoryHint: .notDirectory))
                let id = try await session.start([request])[0]
                let snapshot = try await session.wait(for: id)
                #expect(snapshot.state == .completed)
                let expected = try #require(await catalog.preview(for: 1001)).data
                #expect(sha256Hex(try contents(URL(filePath: path))) == sha256Hex(expected))
                #expect(snapshot.destinationPath == path)
                #expect(snapshot.destination == URL(filePath: path, directoryHint: .notDirectory))
                #expect(snapshot.partialFile == URL(filePath: path + ".part", directoryHint: .notDirectory))
                #expect(snapshot.url == previewURL(url, 1001))
                // Encoded with URLs, as the synthesized coding did: JSONEncoder writes a URL as its text.
                let json = try JSONEncoder().encode(snapshot)
                let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
                #expect(object["destination"] as? String == snapshot.destination.absoluteString)
                #expect(object["partialFile"] as? String == snapshot.partialFile?.absoluteString)
                #expect(object["url"] as? String == previewURL(url, 1001).absoluteString)
                #expect(object["destinationPath"] == nil)
                #expect(try JSONDecoder().decode(TransferSnapshot.self, from: json) == snapshot)
            }
        }
    }

    @Test("a batch is journaled in queue order: reopened, the session finds every transfer queued")
    func journaled() async throws {
        try await withTemporaryDirectory { folder in
            var idle = TransferSessionConfiguration()
            idle.startsTransfers = false
            let requests = (1...25).map { n in
                TransferRequest(
                    url: URL(string: "http://127.0.0.1:9/\(n)")!, destination: folder.appendingPathComponent("\(n).bin"),
                    tag: "t\(n)", headers: n == 3 ? ["Authorization": "Bearer x"] : [:])
            }
            let started = try await withSession(idle, folder: folder) { session, _ in try await session.start(requests) }
            try await withSession(idle, folder: folder) { session, _ in
                let found = await session.transfers()
                #expect(found.map(\.id) == started)
                #expect(found.map(\.tag) == (1...25).map { "t\($0)" })
                #expect(found.allSatisfy { $0.state == .queued })
                #expect(found[2].requestHeaders == ["Authorization": "Bearer x"])
                let progress = await session.progress(started)
                #expect(started.allSatisfy { progress[$0] == found[0].progress })
                #expect(found[0].progress == TransferProgress(state: .queued, receivedBytes: 0, expectedBytes: nil, failure: nil))
                // A new transfer queues after every journaled one.
                let later = try await session.start(
                    url: URL(string: "http://127.0.0.1:9/later")!, destination: folder.appendingPathComponent("later.bin"))
                #expect(await session.transfers().last?.id == later)
            }
        }
    }
}
