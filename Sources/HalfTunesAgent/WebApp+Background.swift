import Foundation
import HalfTunesKit
import HalfTunesWeb
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
