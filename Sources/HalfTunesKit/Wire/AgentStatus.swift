import Foundation

/// What `GET /api/agent` says of the agent: its process, where it listens and whose downloads it
/// owns.
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

    /// A status to send.
    public init(pid: Int32, socket: String, home: String, socketActivated: Bool) {
        (self.pid, self.socket, self.home, self.socketActivated) = (pid, socket, home, socketActivated)
    }
}
