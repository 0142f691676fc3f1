import Foundation
import Synchronization

/// Lets go of the pages of finished files that are not flushed (`process-crash`), a few files
/// later, once the kernel has written them — when taking fresh pages costs more than writing
/// back used ones. A batch then streams through the pages of the files before it.
///
/// Some virtual machines hand the memory the guest frees back to their host; the guest's first
/// touch of such a page then costs a trip to the host (on the machine this was measured on, 2.4 ms
/// a MiB written instead of 0.3). A download not flushed leaves its pages dirty, and the next one
/// takes fresh pages. So the write times of files not flushed are measured (``PageCostMeter``),
/// and once a window of them costs like that, recycling starts, for the rest of the process: a
/// finished file's write-back is started when it is handed over (advice, no wait), its name waits
/// in a ring of ``capacity`` files, and when it leaves, its pages written meanwhile (clean) are
/// dropped, to be the next ones written. Pages still dirty or being written stay: nothing here
/// waits for the device (a file still being written waits for its write-back windows from then
/// on, as ``PartialFile`` says). Where fresh pages are cheap, nothing changes: write-back would
/// cost the batch time that the kernel otherwise spends after it. The ring keeps names, not open
/// files, so a file deleted meanwhile frees its space at once.
final class PageRecycler: Sendable {
    /// Finished files whose pages are let go of when as many have come after them.
    static let capacity = 8
    /// Files shorter than this are never recycled: a few pages save less than their write-back's
    /// start costs when it comes file by file.
    static let minimumLength: Int64 = 64 << 10

    /// The recycler of this process's downloads.
    static let shared = PageRecycler()

    private struct State {
        var ring: [String] = []
        var meter = PageCostMeter()
    }

    private let state = Mutex(State())
    private let recycling: Atomic<Bool>

    /// A recycler that starts recycling once fresh pages prove costly, or at once when
    /// `recycling` (tests).
    init(recycling: Bool = false) {
        self.recycling = Atomic(recycling)
    }

    /// Whether finished files are recycled (fresh pages were seen to cost).
    var isRecycling: Bool { recycling.load(ordering: .relaxed) }

    /// How many finished files wait in the ring.
    var count: Int { state.withLock { $0.ring.count } }

    /// Counts a write of `bytes` to a file not flushed that took `nanoseconds`.
    func account(bytes: Int, nanoseconds: UInt64) {
        let costly = state.withLock { $0.meter.add(bytes: bytes, nanoseconds: nanoseconds) }
        if costly == true { recycling.store(true, ordering: .relaxed) }
    }

    /// Takes a finished file not flushed, `length` bytes at `path` and open as `descriptor` (which
    /// it closes): when recycling and the file is not tiny, starts its write-back and puts it in
    /// the ring, whose oldest file leaves with its written pages dropped.
    func finished(_ descriptor: Int32, path: String, length: Int64) {
        guard isRecycling, length >= Self.minimumLength else {
            close(descriptor)
            return
        }
        // On Linux, DONTNEED on dirty pages starts their write-back and returns at once.
        _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED))
        close(descriptor)
        let leaving = state.withLock { state -> String? in
            state.ring.append(path)
            return state.ring.count > Self.capacity ? state.ring.removeFirst() : nil
        }
        guard let leaving else { return }
        let file = open(leaving, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return }  // gone or moved meanwhile: nothing to let go of
        _ = posix_fadvise(file, 0, 0, Int32(POSIX_FADV_DONTNEED))
        close(file)
    }
}

/// Tells from the time writes into the page cache take whether its fresh pages are costly.
struct PageCostMeter {
    /// Bytes of writes a verdict is made over.
    static let windowBytes = 4 << 20
    /// The time a MiB written may take before fresh pages count as costly: between this
    /// machine's 0.3 ms (recently freed pages) and 2.4 ms (pages its host took back).
    static let costlyNanosecondsPerMiB: UInt64 = 1_000_000

    private var bytes = 0
    private var nanoseconds: UInt64 = 0

    /// Adds a write; at the end of a window, whether that window's writes were costly (nil
    /// before the end). A write counts for at most four times the costly time for its bytes: one
    /// preempted write weighs like a few costly ones, not like a window of them.
    mutating func add(bytes: Int, nanoseconds: UInt64) -> Bool? {
        self.bytes += bytes
        self.nanoseconds += min(nanoseconds, (4 * Self.costlyNanosecondsPerMiB * UInt64(bytes)) >> 20)
        guard self.bytes >= Self.windowBytes else { return nil }
        defer { (self.bytes, self.nanoseconds) = (0, 0) }
        return self.nanoseconds << 20 > Self.costlyNanosecondsPerMiB * UInt64(self.bytes)
    }
}
