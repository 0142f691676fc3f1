import Foundation

/// A background session the agent watches (its process lives) or runs (its process ended).
public struct BackgroundSessionSummary: Codable, Sendable, Hashable {
    public var identifier: String
    public var directory: String
    /// The process that claimed it last.
    public var pid: Int32
    /// Whether the agent runs its transfers now.
    public var running: Bool

    /// A summary to send.
    public init(identifier: String, directory: String, pid: Int32, running: Bool) {
        (self.identifier, self.directory, self.pid, self.running) = (identifier, directory, pid, running)
    }
}

/// What `GET /api/agent` says of the agent: its process, where it listens, whose downloads it
/// owns and the background sessions it keeps.
public struct AgentStatus: Codable, Sendable, Hashable {
    public var v = 1
    /// The agent's process.
    public var pid: Int32
    /// Its socket.
    public var socket: String
    /// The home whose downloads it owns.
    public var home: String
    /// Whether systemd bound its socket and started it on a connection (socket activation).
    public var socketActivated: Bool
    /// The background sessions it watches or runs.
    public var backgroundSessions: [BackgroundSessionSummary]

    /// A status to send.
    public init(pid: Int32, socket: String, home: String, socketActivated: Bool, backgroundSessions: [BackgroundSessionSummary]) {
        (self.pid, self.socket, self.home, self.socketActivated, self.backgroundSessions) = (
            pid, socket, home, socketActivated, backgroundSessions
        )
    }
}
