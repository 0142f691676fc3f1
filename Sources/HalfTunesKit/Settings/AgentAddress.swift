import Foundation
import NetworkBasics
import SystemBasics

#if canImport(Glibc)
    import Glibc
#endif

/// Where a home's transfer agent (`halftunes agent`) listens: a Unix domain socket in a folder
/// only its user may enter.
///
/// The folder is `$XDG_RUNTIME_DIR/halftunes`, else `$XDG_STATE_HOME/halftunes`, else
/// `~/.local/state/halftunes`; mode 0700, owned by the user. The default home's agent listens on
/// `agent.sock` there; another home's (`--home`, `HALFTUNES_HOME`) on `agent-<hash of its path>.sock`.
public struct AgentAddress: Sendable, Hashable {
    /// The folder of the socket.
    public let folder: URL
    /// The socket.
    public let socket: URL

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

    /// The address of `home`'s agent.
    public static func resolve(
        for home: HalfTunesHome, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> AgentAddress {
        func absolute(_ name: String) -> String? { environment[name].flatMap { $0.hasPrefix("/") ? $0 : nil } }
        let base =
            absolute("XDG_RUNTIME_DIR") ?? absolute("XDG_STATE_HOME")
            ?? ((environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.local/state")
        let folder = URL(fileURLWithPath: base, isDirectory: true).appendingPathComponent("halftunes", isDirectory: true)
        var defaults = environment
        defaults["HALFTUNES_HOME"] = nil
        let isDefault = HalfTunesHome.resolve(environment: defaults).root.standardizedFileURL == home.root.standardizedFileURL
        let name = isDefault ? "agent.sock" : "agent-\(hash(home.root.standardizedFileURL.path)).sock"
        return AgentAddress(folder: folder, socket: folder.appendingPathComponent(name))
    }

    /// The lock the running agent holds for its life (two agents starting at once: one wins).
    public var lockFile: URL { folder.appendingPathComponent(socket.deletingPathExtension().lastPathComponent + ".lock") }

    /// The URL requests to the agent go to (AsyncHTTPClient's `http+unix` scheme).
    public var url: URL {
        let path = socket.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? socket.path
        return URL(string: "http+unix://\(path)")!
    }

    /// The most bytes of a socket's path (`sun_path` less its final zero).
    static let maximumPathBytes = PeerCredentials.maximumSocketPathBytes

    /// Creates the folder (mode 0700) if it is missing, then checks it as ``checkFolder()`` does.
    ///
    /// - Throws: ``DownloadError`` `.badInput` naming the folder and what is wrong with it.
    public func prepareFolder() throws(DownloadError) {
        if !FileManager.default.fileExists(atPath: folder.path) {
            do {
                try FileManager.default.createDirectory(
                    at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw DownloadError(
                    .badInput, "cannot create \(folder.deletingLastPathComponent().path): \(error.localizedDescription)")
            }
            if mkdir(folder.path, 0o700) != 0 && errno != EEXIST {
                throw DownloadError(.badInput, "cannot create \(folder.path): \(String(cString: strerror(errno)))")
            }
        }
        try checkFolder()
    }

    /// Checks that the folder is this user's, mode 0700 (nobody else may reach the socket), and
    /// that the socket's path fits a Unix socket.
    public func checkFolder() throws(DownloadError) {
        guard socket.path.utf8.count <= Self.maximumPathBytes else {
            throw DownloadError(
                .badInput,
                "the agent's socket path \(socket.path) is \(socket.path.utf8.count) bytes; Unix sockets take \(Self.maximumPathBytes)"
            )
        }
        var info = stat()
        guard lstat(folder.path, &info) == 0 else {
            throw DownloadError(.badInput, "cannot use \(folder.path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw DownloadError(.badInput, "\(folder.path) must be a folder (the agent's socket goes there)")
        }
        guard info.st_uid == geteuid() else {
            throw DownloadError(
                .badInput,
                "\(folder.path) belongs to uid \(info.st_uid), not to you (uid \(geteuid())): the agent will not use it")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw DownloadError(
                .badInput,
                "\(folder.path) is mode \(String(info.st_mode & 0o777, radix: 8)): the agent needs it 700 (chmod 700 \(folder.path))"
            )
        }
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

    /// FNV-1a, 64 bits, in hex: a short stable name for a home's path.
    static func hash(_ text: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        return String(value, radix: 16)
    }
}
