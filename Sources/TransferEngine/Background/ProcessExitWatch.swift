import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Calls back once when a process ends, however it ends (SIGKILL too): a thread of its own
/// blocked in `poll` on the process's pidfd (Linux 5.3 and later), never polling on a timer.
final class ProcessExitWatch: Sendable {
    /// Written to stop the watch before the process ends (a socket: a write after the watch's
    /// end fails quietly, where a pipe's would raise SIGPIPE).
    private let wake: Int32
    private let stopped = Flag()

    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// Watches `pid`; `onExit` runs on the watch's thread once the process has ended (at once if
    /// it has already), unless ``cancel()`` came first.
    ///
    /// - Throws: ``TransferError`` (`.invalidRequest`) when the system cannot watch the process.
    init(pid: Int32, onExit: @escaping @Sendable () -> Void) throws(TransferError) {
        typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else {
            throw TransferError(.invalidRequest, "this system cannot watch processes (no pidfd_open)", permanent: true)
        }
        let fd = unsafeBitCast(symbol, to: PidfdOpen.self)(pid, 0)
        guard fd >= 0 || errno == ESRCH else {
            throw TransferError(
                .invalidRequest, "cannot watch process \(pid): \(String(cString: strerror(errno)))", permanent: true)
        }
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            if fd >= 0 { close(fd) }
            throw TransferError(.fileSystem, "cannot make a socket pair: \(String(cString: strerror(errno)))", permanent: false)
        }
        wake = ends[0]
        let (watched, stopped, wakeRead) = (fd, stopped, ends[1])
        let thread = Thread {
            defer {
                if watched >= 0 { close(watched) }
                close(wakeRead)
            }
            // The process was gone before the watch began.
            guard watched >= 0 else { return onExit() }
            var fds = [
                pollfd(fd: watched, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            while poll(&fds, 2, -1) < 0 && errno == EINTR {}
            if fds[0].revents != 0, !stopped.value.load(ordering: .acquiring) { onExit() }
        }
        thread.name = "process-exit-watch"
        thread.start()
    }

    /// Stops the watch: `onExit` is not called after this returns, unless it was already running.
    func cancel() {
        guard !stopped.value.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = send(wake, &byte, 1, Int32(MSG_NOSIGNAL))
    }

    deinit {
        cancel()
        close(wake)
    }
}
