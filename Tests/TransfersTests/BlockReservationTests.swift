import Foundation
import Hummingbird
import NIOCore
import TestSupport
import Testing

@testable import TransferEngine

/// A file with a write-back window or more still to come has its blocks reserved once its length is
/// known, its size left where the written bytes end; a smaller one is left to the kernel's delayed
/// allocation. Sizes and allocated blocks as coreutils' `stat` reads them.
@Suite("Reserved blocks of large files")
struct BlockReservationTests {
    /// The file's size and the bytes allocated to it, by `stat`.
    static func onDisk(_ path: String) async throws -> (size: Int64, allocated: Int64) {
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/stat"), ["-c", "%s %b %B", path])
        try #require(result.status == 0, "stat: \(result.stderr)")
        let fields = result.stdout.split(separator: " ").compactMap { Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(fields.count == 3, "stat said \(result.stdout)")
        return (fields[0], fields[1] * fields[2])
    }

    @Test("a large file's blocks are reserved from where it stands, its size unchanged; a small file's are not")
    func reserved() async throws {
        try await withTemporaryDirectory { folder in
            let window = PartialFile.writebackWindow
            let large = folder.appendingPathComponent("large.m4a.part").path
            let total = window * 2 + 12_345
            let file = try PartialFile(path: large, offset: 0, flushes: false)
            file.reserve(upTo: total)
            var disk = try await Self.onDisk(large)
            #expect(disk.size == 0)
            #expect(disk.allocated >= total, "\(disk.allocated) bytes allocated for \(total)")
            try file.write(ByteBuffer(repeating: 7, count: 65_536))
            file.close()
            disk = try await Self.onDisk(large)
            #expect(disk.size == 65_536)

            let small = folder.appendingPathComponent("small.m4a.part").path
            let smallFile = try PartialFile(path: small, offset: 0, flushes: false)
            smallFile.reserve(upTo: window - 1)
            smallFile.close()
            #expect(try await Self.onDisk(small) == (0, 0))

            // A file resumed at 4 bytes: what is reserved lies past them, the 4 bytes stay.
            let resumed = folder.appendingPathComponent("resumed.m4a.part").path
            try Data("0123456789".utf8).write(to: URL(fileURLWithPath: resumed))
            let resumedFile = try PartialFile(path: resumed, offset: 4, flushes: false)
            resumedFile.reserve(upTo: 4 + window)
            resumedFile.close()
            disk = try await Self.onDisk(resumed)
            #expect(disk.size == 4 && disk.allocated >= 4 + window)
            #expect(try Data(contentsOf: URL(fileURLWithPath: resumed)) == Data("0123".utf8))
        }
    }

    @Test("a large download's partial file has its blocks once the head arrives, and ends with its bytes alone")
    func reservedOnTheWire() async throws {
        let total = Int(PartialFile.writebackWindow) * 2 + 54_321
        let body = Data((0..<total).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 11) })
        try await withTemporaryDirectory { folder in
            let destination = folder.appendingPathComponent("large.bin")
            let partial = destination.path + ".part"
            // The partial file as the server saw it once the first bytes were on the client's disk.
            let seen = RequestLog<(size: Int64, allocated: Int64)>()
            let router = Router()
            router.get("/large") { _, _ -> Response in
                Response(
                    status: .ok, headers: [.eTag: "\"large\"", .contentLength: String(total)],
                    body: ResponseBody(contentLength: total) { writer in
                        try await writer.write(ByteBuffer(bytes: body.prefix(50_000)))
                        while PartialFile.length(at: partial) < 50_000 { try await Task.sleep(for: .milliseconds(5)) }
                        seen.append(try await Self.onDisk(partial))
                        try await writer.write(ByteBuffer(bytes: body.dropFirst(50_000)))
                        try await writer.finish(nil)
                    })
            }
            try await withTestServer(router) { url in
                try await withSession(folder: folder) { session, _ in
                    let id = try await session.start(url: url.appendingPathComponent("large"), destination: destination)
                    let done = try await session.wait(for: id)
                    #expect(done.state == .completed, "\(done.failure?.message ?? "")")
                }
            }
            let during = try #require(seen.all.first)
            #expect(during.size < Int64(total))
            #expect(during.allocated >= Int64(total), "\(during.allocated) bytes allocated for \(total) while downloading")
            #expect(try contents(destination) == body)
            let after = try await Self.onDisk(destination.path)
            #expect(after.size == Int64(total) && after.allocated - Int64(total) < 65_536, "\(after)")
        }
    }
}
