import AsyncHTTPClient
import Foundation
import HalfTunesKit

extension AgentStatus {
    /// The status of the agent at `address`.
    public static func read(agent address: AgentAddress) async throws(DownloadError) -> AgentStatus {
        let request = HTTPClientRequest(url: address.url.absoluteString + "/api/agent")
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 16 << 20)
            return try JSONDecoder().decode(AgentStatus.self, from: Data(body.readableBytesView))
        } catch {
            throw DownloadError(.upstreamFailure, "cannot read the agent's status on \(address.socket.path): \(error)")
        }
    }
}
