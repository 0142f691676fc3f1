import Foundation
import NIOCore
import TestSupport
import Testing

@testable import TransferEngine

/// The temporary directory the tests write in.
enum TemporaryFolder {
    /// Whether the kernel can drop the pages of files in the temporary directory: not on tmpfs
    /// (the type of the longest mount point above it, as `/proc/mounts` lists it).
    static var dropsPages: Bool {
        let folder = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path
        guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return false }
        var best: (point: String, type: String)?
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count > 2 else { continue }
            let point = fields[1]
            let above = point == "/" || folder == point || folder.hasPrefix(point + "/")
            if above, point.count > (best?.point.count ?? -1) { best = (point, fields[2]) }
        }
        return best.map { $0.type != "tmpfs" } ?? false
    }
}

/// A file lets go of its cached pages once they are on the device: as it goes (past a write-back
/// window), and all of them when a durable one is finished; one not flushed keeps its last ones. Residency is the kernel's own answer (`mincore`).
@Suite(
    "Pages of finished files",
    .enabled(if: TemporaryFolder.dropsPages, "the temporary directory is on tmpfs, whose pages are its files: skipped"))
struct PageReleaseTests {
    /// How many of the file's pages are in the page cache (of its first `prefix` bytes, when given).
    static func residentPages(_ path: String, prefix: Int? = nil) throws -> (resident: Int, total: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var info = stat()
        try #require(fstat(descriptor, &info) == 0)
        let length = min(Int(info.st_size), prefix ?? .max)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let mapped = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0)
        try #require(mapped != MAP_FAILED)
        defer { munmap(mapped, length) }
        var vector = [UInt8](repeating: 0, count: (length + page - 1) / page)
        try #require(mincore(mapped, length, &vector) == 0)
        return (vector.count(where: { $0 & 1 == 1 }), vector.count)
    }

    /// Writes `size` bytes of a repeating pattern through a partial file and finishes it.
    static func write(_ size: Int, to destination: String, flushes: Bool) throws -> [UInt8] {
        let chunk = (0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        let file = try PartialFile(path: destination + ".part", offset: 0, flushes: flushes)
        var left = size
        while left > 0 {
            let count = min(left, chunk.count)
            try file.write(ByteBuffer(bytes: chunk[..<count]))
            left -= count
        }
        try file.finish(at: destination)
        return chunk
    }

    /// The bytes ``write(_:to:flushes:)`` writes: `chunk` over and over, `size` of them.
    static func expected(_ size: Int, chunk: [UInt8]) -> Data {
        var bytes = Data(capacity: size)
        while bytes.count < size { bytes.append(contentsOf: chunk.prefix(size - bytes.count)) }
        return bytes
    }

    /// A partial file opened in a fresh folder (which `body` gets too, and which is removed after).
    static func withPartialFile(
        flushes: Bool, recycler: PageRecycler = .shared, _ body: (_ file: PartialFile, _ path: String) throws -> Void
    ) async throws {
        try await withTemporaryDirectory { folder in
            let path = folder.path + "/growing.m4a.part"
            let file = try PartialFile(path: path, offset: 0, flushes: flushes, recycler: recycler)
            defer { file.close() }
            try body(file, path)
        }
    }

    /// Writes `windows` write-back windows of `byte` through `file`.
    static func writeWindows(_ windows: Int, of byte: UInt8, to file: PartialFile) throws {
        let chunk = ByteBuffer(repeating: byte, count: 65_536)
        for _ in 0..<(windows * Int(PartialFile.writebackWindow) / chunk.readableBytes) { try file.write(chunk) }
    }

    @Test("a durable file past the write-back window is left out of the page cache, its bytes whole")
    func largeFileReleased() async throws {
        try await withTemporaryDirectory { folder in
            let size = Int(PartialFile.writebackWindow) * 3 + 12_345
            let destination = folder.path + "/large.m4a"
            let chunk = try Self.write(size, to: destination, flushes: true)
            let pages = try Self.residentPages(destination)
            #expect(pages.resident == 0, "\(pages.resident) of \(pages.total) pages still cached")
            #expect(try Data(contentsOf: URL(filePath: destination)) == Self.expected(size, chunk: chunk))
        }
    }

    @Test("a durable file waits for the oldest trailing window's write-back: its pages are gone, with no flush asked")
    func durableWindowsSettled() async throws {
        try await Self.withPartialFile(flushes: true) { file, path in
            try Self.writeWindows(3, of: 0x3C, to: file)
            try file.settleWriteback()  // the requests are made on a file-work thread
            let first = try Self.residentPages(path, prefix: Int(PartialFile.writebackWindow))
            #expect(first.resident == 0, "\(first.resident) of the first window's \(first.total) pages still cached")
            #expect(try Self.residentPages(path).resident > 0, "the newest windows' pages were dropped")
        }
    }

    @Test("a file not flushed waits for its oldest trailing window too once fresh pages prove costly")
    func unflushedWindowsSettledWhenPagesCost() async throws {
        // A recycler already recycling: this process's fresh pages proved costly.
        try await Self.withPartialFile(flushes: false, recycler: PageRecycler(recycling: true)) { file, path in
            try Self.writeWindows(3, of: 0x6B, to: file)
            try file.settleWriteback()  // the requests are made on a file-work thread
            let first = try Self.residentPages(path, prefix: Int(PartialFile.writebackWindow))
            #expect(first.resident == 0, "\(first.resident) of the first window's \(first.total) pages still cached")
            #expect(try Self.residentPages(path).resident > 0, "the newest windows' pages were dropped")
        }
    }

    @Test(
        "while a file is written, the windows behind the newest let go of their written pages",
        arguments: [true, false])
    func trailingWindowsReleased(flushes: Bool) async throws {
        try await Self.withPartialFile(flushes: flushes) { file, path in
            try Self.writeWindows(1, of: 0x5A, to: file)
            // Its requests done first (made later, they would drop the pages the flush below cleans).
            try file.settleWriteback()
            // The first window on the device (as a checkpoint's flush leaves it): its pages are clean.
            try PartialFile.sync(descriptor: file.descriptor, path: path)
            #expect(try Self.residentPages(path).resident > 0, "the first window was never cached")
            try Self.writeWindows(1, of: 0x5A, to: file)
            try file.settleWriteback()  // the requests are made on a file-work thread
            let first = try Self.residentPages(path, prefix: Int(PartialFile.writebackWindow))
            #expect(first.resident == 0, "\(first.resident) of the first window's \(first.total) pages still cached")
            let second = try Self.residentPages(path).resident - first.resident
            #expect(second > 0, "the newest window's pages, not yet written, were dropped")
        }
    }

    @Test("a small durable file leaves the page cache once flushed, one not flushed stays; a large one not flushed lands whole")
    func smallFiles() async throws {
        try await withTemporaryDirectory { folder in
            for flushes in [true, false] {
                let small = folder.path + "/small-\(flushes).m4a"
                _ = try Self.write(300 * 1024, to: small, flushes: flushes)
                let pages = try Self.residentPages(small)
                #expect(pages.resident == (flushes ? 0 : pages.total), "flushes: \(flushes)")
            }
            let size = Int(PartialFile.writebackWindow) * 3 + 999
            let unflushed = folder.path + "/unflushed.m4a"
            let chunk = try Self.write(size, to: unflushed, flushes: false)
            #expect(try Data(contentsOf: URL(filePath: unflushed)) == Self.expected(size, chunk: chunk))
        }
    }
}
