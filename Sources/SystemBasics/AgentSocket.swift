import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where a per-user agent listens: a Unix socket in a folder only its user may enter (mode 0700,
/// owned by the user), with the lock the running agent holds beside it. HalfTunes' agent and the
/// transfer agent are both found and checked this way.
public struct AgentSocket: Sendable, Hashable {
    /// The folder of the socket.
    public let folder: URL
    /// The socket.
    public let socket: URL

    /// `name` in `folderName` under `$XDG_RUNTIME_DIR`; without it, under the user's runtime
    /// folder (`userRuntimeFolder`), so a cron job or a shell without the variable finds the agent
    /// the user's session started; else under `$XDG_STATE_HOME`, else `~/.local/state`.
    public static func resolve(
        folder folderName: String, name: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        userRuntimeFolder: String? = ownFolder(at: "/run/user/\(geteuid())")
    ) -> AgentSocket {
        func absolute(_ name: String) -> String? { environment[name].flatMap { $0.hasPrefix("/") ? $0 : nil } }
        let base =
            absolute("XDG_RUNTIME_DIR") ?? userRuntimeFolder ?? absolute("XDG_STATE_HOME")
            ?? ((environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.local/state")
        let folder = URL(fileURLWithPath: base, isDirectory: true).appendingPathComponent(folderName, isDirectory: true)
        return AgentSocket(folder: folder, socket: folder.appendingPathComponent(name))
    }

    /// `path` when it is a folder (not a link) of this user's that nobody else may enter, as
    /// systemd-logind makes `/run/user/<uid>` for a user's sessions; else `nil`.
    public static func ownFolder(at path: String) -> String? { folderProblem(at: path) == nil ? path : nil }

    public init(folder: URL, socket: URL) {
        self.folder = folder
        self.socket = socket
    }

    /// The lock the running agent holds for its life (two agents starting at once: one wins).
    public var lockFile: URL { folder.appendingPathComponent(socket.deletingPathExtension().lastPathComponent + ".lock") }

    /// The URL requests to the agent go to (AsyncHTTPClient's `http+unix` scheme).
    public var url: URL {
        let path = socket.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? socket.path
        return URL(string: "http+unix://\(path)")!
    }

    /// Why a socket's folder cannot be used: one line naming it.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Creates the folder (mode 0700) if it is missing, then checks it as ``checkFolder()`` does.
    public func prepareFolder() throws(Problem) {
        if !FileManager.default.fileExists(atPath: folder.path) {
            do {
                try FileManager.default.createDirectory(
                    at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw Problem(
                    description: "cannot create \(folder.deletingLastPathComponent().path): \(error.localizedDescription)")
            }
            if mkdir(folder.path, 0o700) != 0 && errno != EEXIST {
                throw Problem(description: "cannot create \(folder.path): \(String(cString: strerror(errno)))")
            }
        }
        try checkFolder()
    }

    /// Checks that the folder is this user's, mode 0700 (nobody else may reach the socket), and
    /// that the socket's path fits a Unix socket.
    public func checkFolder() throws(Problem) {
        let bytes = socket.path.utf8.count
        guard bytes <= PeerCredentials.maximumSocketPathBytes else {
            throw Problem(
                description:
                    "the agent's socket path \(socket.path) is \(bytes) bytes; Unix sockets take \(PeerCredentials.maximumSocketPathBytes)"
            )
        }
        if let problem = Self.folderProblem(at: folder.path) { throw problem }
    }

    /// Why `path` is not a folder (not a link) of this user's, mode 0700; `nil` when it is.
    private static func folderProblem(at path: String) -> Problem? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            return Problem(description: "cannot use \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            return Problem(description: "\(path) must be a folder (the agent's socket goes there)")
        }
        guard info.st_uid == geteuid() else {
            return Problem(
                description: "\(path) belongs to uid \(info.st_uid), not to you (uid \(geteuid())): the agent will not use it")
        }
        guard info.st_mode & 0o077 == 0 else {
            return Problem(
                description:
                    "\(path) is mode \(String(info.st_mode & 0o777, radix: 8)): the agent needs it 700 (chmod 700 \(path))")
        }
        return nil
    }

    /// What a probe of the socket found.
    public enum Probe: Sendable, Equatable {
        /// No socket file.
        case absent
        /// A socket file nobody listens on (its agent died).
        case stale
        /// An agent of this user answers: its process.
        case running(pid: Int32)
        /// Something run by another user answers: never talked to.
        case foreign(uid: UInt32)
    }

    /// Connects to the socket to see who answers (the peer's credentials, `SO_PEERCRED`), and
    /// hangs up without a request.
    public func probe() -> Probe {
        switch PeerCredentials.probe(socketAt: socket.path) {
        case .absent: .absent
        case .refused: .stale
        case .answered(let peer) where peer.uid != geteuid(): .foreign(uid: peer.uid)
        case .answered(let peer): .running(pid: peer.pid)
        }
    }

    /// Removes a stale socket file (one nobody listens on).
    public func removeStaleSocket() { if probe() == .stale { unlink(socket.path) } }
}
