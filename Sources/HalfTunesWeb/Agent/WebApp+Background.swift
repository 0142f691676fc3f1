import AsyncHTTPClient
import Foundation
import HalfTunesKit
import Hummingbird
import TransferEngine

extension WebApp {
    /// The routes by which `ResumableURLSession` background sessions hand themselves to the agent
    /// (``BackgroundKeeper``), on the agent's socket only: they name a folder, which the page's
    /// API never takes, and only this user's processes reach the socket.
    ///
    /// - `PUT /api/background-sessions` with a ``BackgroundClaim``: the claimant owns the session
    ///   now (the agent lets go of it first) and is watched; 204 once it may open the session.
    /// - `DELETE /api/background-sessions?directory=…&pid=…`: the owner closed it for good.
    func addBackgroundRoutes(to router: Router<WebContext>, keeper: BackgroundKeeper) {
        router.put("api/background-sessions") { request, context in
            let body = try await request.body.collect(upTo: 64 * 1024)
            let claim: BackgroundClaim
            do { claim = try JSONDecoder().decode(BackgroundClaim.self, from: Data(buffer: body)) } catch {
                throw DownloadError(.badInput, "the body is not a background-session claim: \(error)")
            }
            do { try await keeper.claim(claim) } catch { throw DownloadError(error) }
            return Response(status: .noContent)
        }
        router.delete("api/background-sessions") { request, _ in
            let parameters = request.uri.queryParameters
            guard let directory = parameters["directory"].map(String.init), let pid = parameters["pid"].flatMap({ Int32($0) })
            else { throw DownloadError(.badInput, "directory and pid name the session released") }
            await keeper.release(directory: directory, pid: pid)
            return Response(status: .noContent)
        }
    }
}

/// A background session the agent watches (its process lives) or runs (its process ended).
public struct BackgroundSessionSummary: Codable, Sendable, Hashable {
    public var identifier: String
    public var directory: String
    /// The process that claimed it last.
    public var pid: Int32
    /// Whether the agent runs its transfers now.
    public var running: Bool
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

    /// The status of the agent at `address`.
    public static func read(agent address: AgentAddress) async throws(DownloadError) -> AgentStatus {
        let request = HTTPClientRequest(url: address.url.absoluteString + "/api/agent")
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 16 << 20)
            return try JSONDecoder().decode(AgentStatus.self, from: Data(buffer: body))
        } catch {
            throw DownloadError(.upstreamFailure, "cannot read the agent's status on \(address.socket.path): \(error)")
        }
    }
}
