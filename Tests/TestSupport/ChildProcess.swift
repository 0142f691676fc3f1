import Foundation
import Synchronization

/// A program run as a child process, its output collected without blocking Swift's concurrency
/// threads (the servers under test need them).
public final class ChildProcess: Sendable {
    /// How a finished child ended.
    public struct Result: Sendable {
        /// Exit status, or the signal number when `signaled`.
        public let status: Int32
        /// Whether it was ended by a signal.
        public let signaled: Bool
        /// Everything it wrote to standard output.
        public let stdout: String
        /// Everything it wrote to standard error.
        public let stderr: String
    }

    /// State shared with the reader threads.
    private final class Shared: Sendable {
        let output = Mutex<(stdout: Data, stderr: Data)>((Data(), Data()))
        let outputChanged = Mutex<[CheckedContinuation<Void, Never>]>([])
        let done = Mutex(false)
        let ended = Mutex<(status: Int32, signaled: Bool)>((0, false))

        func wakeWaiters() {
            let waiters = outputChanged.withLock { waiters in
                defer { waiters = [] }
                return waiters
            }
            waiters.forEach { $0.resume() }
        }
    }

    private let child: Spawn.Child
    private let shared = Shared()
    private let finished = Gate()

    /// Starts `executable` with `arguments`; `environment` is added to this process's environment.
    public init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        // The kernel kills the child when the test process dies, even by SIGKILL (setpriv execs
        // the program in place, so the pid is the program's).
        let (program, all) =
            FileManager.default.isExecutableFile(atPath: Self.setpriv)
            ? (Self.setpriv, ["--pdeathsig", "KILL", "--", executable.path] + arguments) : (executable.path, arguments)
        // halftunes runs as users run it: its downloads go to the home's agent, started on demand,
        // its socket in this test process's runtime folder unless the test names one; a test about
        // in-process downloads says HALFTUNES_AGENT=0. A background ResumableURLSession runs in its
        // own process unless a test asks for its agent (TRANSFERS_AGENT=<path>).
        let merged = ProcessInfo.processInfo.environment
            .merging(["TRANSFERS_AGENT": "0", "XDG_RUNTIME_DIR": try TestAgents.runtimeFolder().path]) { $1 }
            .merging(environment) { $1 }
        let out = try Spawn.pipe()
        let err = try Spawn.pipe()
        defer {
            close(out.write)
            close(err.write)
        }
        do {
            child = try Spawn.start(program, all, environment: merged, stdout: out.write, stderr: err.write)
        } catch {
            close(out.read)
            close(err.read)
            throw error
        }
        let reads = DispatchGroup()
        for (fd, isStdout) in [(out.read, true), (err.read, false)] {
            reads.enter()
            // Plain threads: a read blocks, and Swift's concurrency threads serve the servers under test.
            Thread.detachNewThread { [shared] in
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let count = read(fd, &buffer, buffer.count)
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    let chunk = Data(buffer[..<count])
                    shared.output.withLock { if isStdout { $0.stdout.append(chunk) } else { $0.stderr.append(chunk) } }
                    shared.wakeWaiters()
                }
                close(fd)
                reads.leave()
            }
        }
        let pid = child.pid
        Thread.detachNewThread { [finished, shared] in
            let result = Spawn.wait(pid)
            reads.wait()
            shared.ended.withLock { $0 = result }
            shared.done.withLock { $0 = true }
            finished.open()
            shared.wakeWaiters()
        }
    }

    private static let setpriv = "/usr/bin/setpriv"

    /// The process id.
    public var pid: Int32 { child.pid }

    /// Standard output so far.
    public var stdoutSoFar: String { shared.output.withLock { String(decoding: $0.stdout, as: UTF8.self) } }

    /// Standard error so far.
    public var stderrSoFar: String { shared.output.withLock { String(decoding: $0.stderr, as: UTF8.self) } }

    /// Waits until standard output has a line for which `match` returns a value, and returns it;
    /// `nil` if the process ends first.
    ///
    /// - Parameter standardError: Whether to watch standard error instead.
    public func waitForLine<T>(standardError: Bool = false, _ match: (String) -> T?) async -> T? {
        let soFar = { standardError ? self.stderrSoFar : self.stdoutSoFar }
        while true {
            // Any line ending, a terminal's "\r\n" too (one Character, not split by "\n").
            let lines = soFar().split(whereSeparator: \.isNewline).map(String.init)
            if let found = lines.lazy.compactMap(match).first { return found }
            if shared.done.withLock({ $0 }) { return nil }
            let seen = soFar()
            await withCheckedContinuation { continuation in
                shared.outputChanged.withLock { $0.append(continuation) }
                // Output may have arrived, or the process ended, while registering.
                if shared.done.withLock({ $0 }) || soFar() != seen { shared.wakeWaiters() }
            }
        }
    }

    /// Sends a signal (SIGTERM, SIGINT, SIGKILL…).
    public func signal(_ signal: Int32) { kill(child.pid, signal) }

    /// Waits for the process to end and returns how it ended.
    public func wait() async -> Result {
        await finished.wait()
        let (stdout, stderr) = shared.output.withLock { ($0.stdout, $0.stderr) }
        let (status, signaled) = shared.ended.withLock { $0 }
        return Result(
            status: status,
            signaled: signaled,
            stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// Runs a program to the end.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> Result {
        try await ChildProcess(executable, arguments, environment: environment).wait()
    }
}

/// Where the package's built products are (the `halftunes` executable among them).
public enum BuiltProducts {
    /// The built `halftunes` executable.
    public static var halftunes: URL {
        get throws { try executable("halftunes") }
    }

    /// A built executable of the package, by product name.
    public static func executable(_ name: String) throws -> URL {
        let candidates = [
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        ]
        for folder in candidates {
            let url = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw MissingProduct(name: name, searched: candidates.map(\.path))
    }

    struct MissingProduct: Error, CustomStringConvertible {
        let name: String
        let searched: [String]
        var description: String { "\(name) is not built (swift build builds it); looked in \(searched.joined(separator: ", "))" }
    }
}
