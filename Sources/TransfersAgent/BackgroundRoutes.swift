import Foundation
import Hummingbird
import TransferEngine

#if canImport(Glibc)
    import Glibc
#endif

/// The transfer agent's API, on its socket only (this user's processes):
///
/// - `PUT /api/background-sessions` with a ``BackgroundClaim``: the claimant owns the session
///   now (the agent lets go of it first) and is watched; 204 once it may open the session.
/// - `DELETE /api/background-sessions?directory=…&pid=…`: the owner closed it for good.
/// - `GET /api/agent`: the agent's process, socket and the sessions it watches or runs.
enum BackgroundRoutes {
    /// What `GET /api/agent` answers.
    struct Status: Codable, ResponseEncodable {
        struct Session: Codable {
            var identifier: String
            var directory: String
            var pid: Int32
            var running: Bool
        }

        var pid: Int32
        var socket: String
        var backgroundSessions: [Session]
    }

    static func router(keeper: BackgroundKeeper, socket: String) -> Router<BasicRequestContext> {
        let router = Router()
        router.put("api/background-sessions") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 64 * 1024)
            let claim: BackgroundClaim
            do { claim = try JSONDecoder().decode(BackgroundClaim.self, from: Data(buffer: body)) } catch {
                return answer(.badRequest, "the body is not a background-session claim: \(error)")
            }
            do { try await keeper.claim(claim) } catch {
                return answer(.conflict, (error as? TransferError)?.message ?? "\(error)")
            }
            return Response(status: .noContent)
        }
        router.delete("api/background-sessions") { request, _ -> Response in
            let parameters = request.uri.queryParameters
            guard let directory = parameters["directory"].map(String.init), let pid = parameters["pid"].flatMap({ Int32($0) })
            else { return answer(.badRequest, "directory and pid name the session released") }
            await keeper.release(directory: directory, pid: pid)
            return Response(status: .noContent)
        }
        router.get("api/agent") { _, _ -> Status in
            let sessions = await keeper.sessions().map {
                Status.Session(
                    identifier: $0.claim.identifier, directory: $0.claim.directory, pid: $0.claim.pid, running: $0.running)
            }
            return Status(pid: getpid(), socket: socket, backgroundSessions: sessions)
        }
        return router
    }

    /// A plain-text answer saying why.
    private static func answer(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: message)))
    }
}
