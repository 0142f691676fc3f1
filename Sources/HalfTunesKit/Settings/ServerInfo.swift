import Foundation
import NetworkBasics

/// What a running `halftunes serve` tells other `halftunes` commands, so they act through its API
/// instead of opening the session beside it: its URL and request token, in `<home>/server.json`,
/// readable by the owner only.
public struct ServerInfo: Codable, Sendable, Hashable {
    /// Where the server answers.
    public var url: URL
    /// The token its state-changing requests need.
    public var token: String
    /// The server's process id.
    public var pid: Int32

    /// Creates the record.
    public init(url: URL, token: String, pid: Int32 = getpid()) {
        self.url = url
        self.token = token
        self.pid = pid
    }

    static func file(in home: HalfTunesHome) -> URL { home.root.appendingPathComponent("server.json") }

    /// Writes the record (mode 0600).
    public func write(to home: HalfTunesHome) throws {
        try FileManager.default.createDirectory(at: home.root, withIntermediateDirectories: true)
        let url = Self.file(in: home)
        let data = try JSONEncoder().encode(self)
        _ = FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        try data.write(to: url)
    }

    /// Removes the record, if it is this process's.
    public static func remove(from home: HalfTunesHome) {
        if let info = read(from: home), info.pid == getpid() { try? FileManager.default.removeItem(at: file(in: home)) }
    }

    /// The running server's record, if one is running (a record left by a dead process is ignored).
    public static func read(from home: HalfTunesHome) -> ServerInfo? {
        guard let data = try? Data(contentsOf: file(in: home)),
            let info = try? JSONInput.decode(ServerInfo.self, from: data),
            kill(info.pid, 0) == 0 || errno == EPERM
        else { return nil }
        return info
    }
}
