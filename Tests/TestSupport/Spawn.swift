import Foundation
import NetworkBasics
import SystemBasics

#if canImport(Glibc)
    import Glibc
#endif

/// Starting a program with `posix_spawn`, not Foundation's `Process`: the tests hold a thousand
/// descriptors or more at once, and `Process.run` on Linux walks `/proc/self/fd` copying each
/// entry's whole name buffer, which reads past glibc's directory buffer and can end the test
/// process with a bad pointer dereference.
///
/// The child gets standard input from /dev/null, the given descriptors as standard output and
/// error (or /dev/null), no other descriptor of this process, its own process group (a ^C to the
/// test runner is the runner's), and the default action for the signals a test process handles.
public enum Spawn {
    /// A started child.
    public struct Child: Sendable {
        public let pid: pid_t
    }

    /// Why a program could not be started.
    public struct Failure: Error, CustomStringConvertible {
        public let program: String
        public let reason: String
        public var description: String { "could not start \(program): \(reason)" }
    }

    /// Starts `program` with `arguments` (after its own name) and `environment`; `stdout` and
    /// `stderr` are descriptors of this process to give it (nil: /dev/null).
    public static func start(
        _ program: String, _ arguments: [String], environment: [String: String]? = nil,
        stdout: Int32? = nil, stderr: Int32? = nil
    ) throws(Failure) -> Child {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (target, source) in [(Int32(1), stdout), (2, stderr)] {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            }
        }
        DetachedProcess.closeOthers(in: &actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let pairs = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = pairs.map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Failure(program: program, reason: String(cString: strerror(result))) }
        return Child(pid: pid)
    }

    /// Runs `program` to the end, its output discarded; returns its wait status decoded.
    public static func run(_ program: String, _ arguments: [String]) throws(Failure) -> (status: Int32, signaled: Bool) {
        let child = try start(program, arguments)
        return wait(child.pid)
    }

    /// Waits (blocking this thread) for `pid` to end; its exit status, or the signal that ended it.
    public static func wait(_ pid: pid_t) -> (status: Int32, signaled: Bool) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return (-1, false) }
        }
        let signal = status & 0x7f
        return signal != 0 && signal != 0x7f ? (signal, true) : ((status >> 8) & 0xff, false)
    }

    /// A pipe whose two ends close on exec (a child gets one only through `start`'s dup2).
    public static func pipe() throws(Failure) -> (read: Int32, write: Int32) {
        // pipe2 is looked up at run time: Swift's Glibc module declares it only under _GNU_SOURCE.
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2") else {
            throw Failure(program: "pipe", reason: "this C library has no pipe2")
        }
        var ends: [Int32] = [-1, -1]
        guard unsafeBitCast(symbol, to: Pipe2.self)(&ends, O_CLOEXEC) == 0 else {
            throw Failure(program: "pipe", reason: String(cString: strerror(errno)))
        }
        return (ends[0], ends[1])
    }
}
