import Foundation
import NetworkBasics
import SystemBasics

/// Where a home's HalfTunes agent (`halftunes agent`) listens: a Unix domain socket in a folder
/// only its user may enter, found and checked as every agent's is (``AgentSocket``).
///
/// The folder is `$XDG_RUNTIME_DIR/halftunes`, else under `/run/user/<uid>` (when it is the user's
/// 0700 folder), `$XDG_STATE_HOME` or `~/.local/state`; mode 0700, owned by the user. The default home's agent listens on
/// `agent.sock` there; another home's (`--home`, `HALFTUNES_HOME`) on `agent-<hash of its path>.sock`.
public struct AgentAddress: Sendable, Hashable {
    /// The socket and its folder.
    public let place: AgentSocket
    /// The folder of the socket.
    public var folder: URL { place.folder }
    /// The socket.
    public var socket: URL { place.socket }

    /// What a probe of the socket found.
    public typealias Probe = AgentSocket.Probe

    public init(folder: URL, socket: URL) { place = AgentSocket(folder: folder, socket: socket) }

    /// The address of `home`'s agent.
    public static func resolve(
        for home: HalfTunesHome, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> AgentAddress {
        var defaults = environment
        defaults["HALFTUNES_HOME"] = nil
        let isDefault = HalfTunesHome.resolve(environment: defaults).root.standardizedFileURL == home.root.standardizedFileURL
        let name = isDefault ? "agent.sock" : "agent-\(hash(home.root.standardizedFileURL.path)).sock"
        let place = AgentSocket.resolve(folder: "halftunes", name: name, environment: environment)
        return AgentAddress(folder: place.folder, socket: place.socket)
    }

    /// The lock the running agent holds for its life (two agents starting at once: one wins).
    public var lockFile: URL { place.lockFile }

    /// The URL requests to the agent go to (AsyncHTTPClient's `http+unix` scheme).
    public var url: URL { place.url }

    /// Creates the folder (mode 0700) if it is missing, then checks it as ``checkFolder()`` does.
    ///
    /// - Throws: ``DownloadError`` `.badInput` naming the folder and what is wrong with it.
    public func prepareFolder() throws(DownloadError) {
        do { try place.prepareFolder() } catch { throw DownloadError(.badInput, error.description) }
    }

    /// Checks that the folder is this user's, mode 0700 (nobody else may reach the socket), and
    /// that the socket's path fits a Unix socket.
    public func checkFolder() throws(DownloadError) {
        do { try place.checkFolder() } catch { throw DownloadError(.badInput, error.description) }
    }

    /// Connects to the socket to see who answers (the peer's credentials, `SO_PEERCRED`), and
    /// hangs up without a request.
    public func probe() -> Probe { place.probe() }

    /// Removes a stale socket file (one nobody listens on).
    public func removeStaleSocket() { place.removeStaleSocket() }

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
