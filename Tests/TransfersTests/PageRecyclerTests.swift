import Foundation
import NIOCore
import TestSupport
import Testing

@testable import TransferEngine

/// The verdict on fresh pages' cost, from write times alone.
struct PageCostMeterTests {
    /// Feeds `count` writes of 64 KiB taking `milliseconds` a MiB; returns the verdicts given.
    static func verdicts(_ meter: inout PageCostMeter, writes count: Int, millisecondsPerMiB: Double) -> [Bool] {
        let nanoseconds = UInt64(millisecondsPerMiB * 1_000_000 / 16)
        return (0..<count).compactMap { _ in meter.add(bytes: 65_536, nanoseconds: nanoseconds) }
    }

    @Test("writes at recently freed pages' speed are cheap; at the speed of pages the host took back, costly")
    func verdictByCost() {
        let perWindow = PageCostMeter.windowBytes / 65_536
        var cheap = PageCostMeter()
        #expect(Self.verdicts(&cheap, writes: perWindow * 3, millisecondsPerMiB: 0.3) == [false, false, false])
        var costly = PageCostMeter()
        #expect(Self.verdicts(&costly, writes: perWindow * 2, millisecondsPerMiB: 2.4) == [true, true])
    }

    @Test("no verdict before a window is full; each window is judged alone")
    func windows() {
        let perWindow = PageCostMeter.windowBytes / 65_536
        var meter = PageCostMeter()
        #expect(Self.verdicts(&meter, writes: perWindow - 1, millisecondsPerMiB: 5).isEmpty)
        // The last write of the window completes it: its costly writes decide.
        #expect(Self.verdicts(&meter, writes: 1, millisecondsPerMiB: 5) == [true])
        #expect(Self.verdicts(&meter, writes: perWindow, millisecondsPerMiB: 0.5) == [false])
        // One write preempted for 20 ms in a window of cheap ones does not make it costly.
        #expect(meter.add(bytes: 65_536, nanoseconds: 20_000_000) == nil)
        #expect(Self.verdicts(&meter, writes: perWindow - 1, millisecondsPerMiB: 0.3) == [false])
    }
}

/// Files not flushed (`process-crash`) let go of their pages a few files later, once written,
/// when fresh pages cost. Residency is the kernel's own answer (`mincore`).
@Suite(
    "Pages of finished files not flushed",
    .enabled(if: TemporaryFolder.dropsPages, "the temporary directory is on tmpfs, whose pages are its files: skipped"))
struct PageRecyclerTests {
    /// Writes `size` bytes (a pattern of `seed`) through a file not flushed and finishes it at
    /// `destination`; returns the bytes.
    static func finish(_ size: Int, seed: Int, at destination: String, recycler: PageRecycler) async throws -> [UInt8] {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) }
        let file = try PartialFile(path: destination + ".part", offset: 0, flushes: false, recycler: recycler)
        try file.write(ByteBuffer(bytes: bytes))
        try await file.finish(at: destination, folders: FolderFlusher())
        return bytes
    }

    @Test(
        "recycling, a finished file keeps its pages until as many files as the ring holds came after it, then lets go of the written ones"
    )
    func ringReleasesWrittenPages() async throws {
        try await withTemporaryDirectory { folder in
            let recycler = PageRecycler(recycling: true)
            var expected: [String: [UInt8]] = [:]
            let first = folder.path + "/first.m4a"
            expected[first] = try await Self.finish(300 * 1024, seed: 0, at: first, recycler: recycler)
            // Written to the device (as the kernel would in its time): its pages are clean now.
            let descriptor = open(first, O_WRONLY | O_CLOEXEC)
            try #require(descriptor >= 0 && fdatasync(descriptor) == 0)
            close(descriptor)
            var last = first
            for number in 1...PageRecycler.capacity {
                #expect(try PageReleaseTests.residentPages(first).resident > 0, "dropped before the ring was full")
                last = folder.path + "/\(number).m4a"
                expected[last] = try await Self.finish(300 * 1024, seed: number, at: last, recycler: recycler)
            }
            let pages = try PageReleaseTests.residentPages(first)
            #expect(pages.resident == 0, "\(pages.resident) of \(pages.total) pages still cached")
            #expect(try PageReleaseTests.residentPages(last).resident > 0, "the newest file's pages were dropped")
            for (path, bytes) in expected { #expect(try [UInt8](Data(contentsOf: URL(filePath: path))) == bytes, "\(path)") }
        }
    }

    @Test("while fresh pages are cheap, a finished file not flushed keeps its pages and nothing is held")
    func cheapPagesStay() async throws {
        try await withTemporaryDirectory { folder in
            let recycler = PageRecycler()
            let perWindow = PageCostMeter.windowBytes / 65_536
            for _ in 0..<perWindow { recycler.account(bytes: 65_536, nanoseconds: 20_000) }  // 0.3 ms a MiB
            #expect(!recycler.isRecycling)
            let destination = folder.path + "/kept.m4a"
            _ = try await Self.finish(300 * 1024, seed: 1, at: destination, recycler: recycler)
            #expect(recycler.count == 0)
            #expect(try PageReleaseTests.residentPages(destination).resident > 0)
        }
    }

    @Test("a window of writes at the cost of fresh pages taken back by the host starts recycling")
    func costlyPagesStartRecycling() {
        let recycler = PageRecycler()
        let perWindow = PageCostMeter.windowBytes / 65_536
        for _ in 0..<(perWindow - 1) { recycler.account(bytes: 65_536, nanoseconds: 150_000) }  // 2.4 ms a MiB
        #expect(!recycler.isRecycling, "recycling before a window was full")
        recycler.account(bytes: 65_536, nanoseconds: 150_000)
        #expect(recycler.isRecycling)
    }

    @Test("a file in the ring is not held open: deleted, it frees its space at once; a tiny file is never recycled")
    func ringHoldsNoFile() async throws {
        try await withTemporaryDirectory { folder in
            let recycler = PageRecycler(recycling: true)
            let destination = folder.path + "/kept.m4a"
            _ = try await Self.finish(300 * 1024, seed: 2, at: destination, recycler: recycler)
            #expect(recycler.count == 1)
            let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
            }
            #expect(!open.contains { $0.hasSuffix("/kept.m4a") }, "the process still has the file open")
            let tiny = folder.path + "/tiny.m4a"
            _ = try await Self.finish(Int(PageRecycler.minimumLength) - 1, seed: 3, at: tiny, recycler: recycler)
            #expect(recycler.count == 1, "a file under \(PageRecycler.minimumLength) bytes went into the ring")
        }
    }
}
