import Foundation
import Synchronization

/// Lets go of the pages of finished files that are not flushed (`process-crash`), a few files
/// later, once the kernel has written them: a batch then streams through the pages of the files
/// before it instead of taking fresh ones for every file.
///
/// A finished file's write-back is started when it is handed over (advice, no wait); the file
/// waits in a ring of ``capacity`` files, and when it leaves, the pages written meanwhile (clean)
/// are dropped. Pages still dirty or being written stay: nothing waits for the device.
final class PageRecycler: Sendable {
    /// Finished files kept open until their pages are let go of.
    static let capacity = 8
    /// Files shorter than this are not recycled: a few pages save less than their write-back's
    /// start costs when it comes file by file.
    static let minimumLength: Int64 = 64 << 10

    /// The recycler of this process's downloads.
    static let shared = PageRecycler()

    private let ring = Mutex<[Int32]>([])

    /// A recycler (the engine uses ``shared``; tests make their own).
    init() {}

    /// How many finished files the ring holds.
    var count: Int { ring.withLock { $0.count } }

    /// Takes the descriptor of a finished file (now the recycler's, closed when it leaves the
    /// ring), starting its write-back; the oldest file leaves, its written pages dropped.
    func recycle(_ descriptor: Int32) {
        // On Linux, DONTNEED on dirty pages starts their write-back and returns at once.
        _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED))
        let leaving = ring.withLock { ring -> Int32? in
            ring.append(descriptor)
            return ring.count > Self.capacity ? ring.removeFirst() : nil
        }
        guard let leaving else { return }
        _ = posix_fadvise(leaving, 0, 0, Int32(POSIX_FADV_DONTNEED))
        close(leaving)
    }

    deinit {
        for descriptor in ring.withLock({ $0 }) { close(descriptor) }
    }
}
