import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The pipe a started agent says it is ready on, as s6's readiness notification: once it
/// listens, it writes one byte to the descriptor it was given and closes it. The end that reads
/// sees the byte, or the pipe closed by an agent that ended first.
public enum ReadinessPipe {
    /// Waits up to `timeout` on `descriptor`, the pipe's reading end, and closes it.
    ///
    /// - Returns: Whether the byte came (`false`: the pipe closed, or the time ran out).
    public static func wait(_ descriptor: Int32, timeout: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            // A thread of its own: the wait blocks, and the task pool's threads are few.
            Thread.detachNewThread {
                continuation.resume(returning: blockingWait(descriptor, timeout: timeout))
            }
        }
    }

    /// Says this process is ready on `descriptor` (its writing end), and closes it.
    public static func signal(_ descriptor: Int32) {
        var byte: UInt8 = 0x0A
        _ = write(descriptor, &byte, 1)
        close(descriptor)
    }

    /// Keeps `descriptor` from the processes this one starts before it says it is ready.
    public static func keepToSelf(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }

    private static func blockingWait(_ descriptor: Int32, timeout: Duration) -> Bool {
        defer { close(descriptor) }
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            var waiting = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&waiting, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return false }
            var byte: UInt8 = 0
            let got = read(descriptor, &byte, 1)
            if got < 0, errno == EINTR { continue }
            return got == 1
        }
    }
}
