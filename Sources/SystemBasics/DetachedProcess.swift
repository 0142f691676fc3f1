import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starting a long-lived helper (a transfer agent) that outlives the process starting it: a
/// session of its own (a closed terminal's SIGHUP never reaches it), standard input from
/// /dev/null, its output appended to a log, no other descriptor of the starter inherited, and
/// the signals the starter handles or ignores back to their defaults.
public enum DetachedProcess {
    /// Starts `executable` with `arguments` (after its own name) and `environment`.
    ///
    /// - Parameter passing: A descriptor of this process the helper gets as its descriptor 3 (a
    ///   pipe to say it is ready, say); every other stays behind.
    /// - Returns: The helper's process id (a child of this process).
    /// - Throws: ``DetachedProcessError`` with the system's reason.
    public static func spawn(
        _ executable: String, _ arguments: [String], log: String, environment: [String: String]? = nil,
        passing descriptor: Int32? = nil
    ) throws(DetachedProcessError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // A descriptor below 3 would be replaced by the ones above before it could be moved.
        let passed = descriptor.map { $0 > 2 ? $0 : fcntl($0, F_DUPFD_CLOEXEC, 3) }
        defer { if let passed, passed != descriptor { close(passed) } }
        if let passed {
            guard passed >= 0 else { throw DetachedProcessError(reason: String(cString: strerror(errno))) }
            posix_spawn_file_actions_adddup2(&actions, passed, 3)
        }
        // Nothing else of this process goes with it (a caller waiting for its pipes to close, say).
        closeOthers(in: &actions, from: passed == nil ? 3 : 4)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        let setsid: Int32 = 0x80  // POSIX_SPAWN_SETSID
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | setsid))
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid: pid_t = 0
        let result =
            if let envp { posix_spawn(&pid, executable, &actions, &attributes, argv, envp) } else {
                posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
            }
        guard result == 0 else { throw DetachedProcessError(reason: String(cString: strerror(result))) }
        return pid
    }

    /// Closes every descriptor from `first` on in the child: glibc's `addclosefrom_np` (2.34 and
    /// later, looked up at run time: Swift's Glibc module does not declare it), else each
    /// descriptor open now.
    public static func closeOthers(in actions: inout posix_spawn_file_actions_t, from first: Int32 = 3) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, first)
            return
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd >= first && fcntl(fd, F_GETFD) >= 0 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }
}

/// Why a helper could not be started.
public struct DetachedProcessError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The system's reason (`strerror`).
    public let reason: String

    public var description: String { reason }
}
