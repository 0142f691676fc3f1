import Foundation
import Hummingbird
import Synchronization
import TestSupport
import Testing

@testable import TransferEngine

/// Requests that wait for a busy connection (`requestsWaitingPerHost`), seen from the server.
@Suite("Requests waiting for busy connections", .timeLimit(.minutes(1)))
struct WaitingRequestTests {
    /// A file server that counts the requests it is answering at once and holds the first
    /// `held` of them until `release` opens.
    final class CountingServer: Sendable {
        let release = Gate()
        let held: Int
        private let state = Mutex<(inFlight: Int, peak: Int, seen: [String])>((0, 0, []))

        init(held: Int) { self.held = held }

        var inFlight: Int { state.withLock { $0.inFlight } }
        var peak: Int { state.withLock { $0.peak } }
        var seen: [String] { state.withLock { $0.seen } }

        static func body(_ name: String) -> Data { Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ name.count) }) }

        func router() -> Router<BasicRequestContext> {
            let router = Router()
            router.get("/files/:name") { _, context in
                let name = context.parameters.get("name") ?? ""
                let order = self.state.withLock { state in
                    state.inFlight += 1
                    state.peak = max(state.peak, state.inFlight)
                    state.seen.append(name)
                    return state.seen.count
                }
                if order <= self.held { await self.release.wait() }
                self.state.withLock { $0.inFlight -= 1 }
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(data: Self.body(name))))
            }
            return router
        }
    }

    @Test(
        "a request waits behind its host's busy connections without opening one, waits again past the connect timeout, and every file arrives whole"
    )
    func waitsBehindBusyConnections() async throws {
        let server = CountingServer(held: 2)
        try await withTestServer(server.router()) { url in
            var configuration = TransferSessionConfiguration(
                maxConcurrentTransfers: 4, maxTransfersPerHost: 2, requestsWaitingPerHost: 1,
                // A single failed attempt would fail the transfer: waiting again must not count.
                // The timeout is also a real connection's: at 200 ms a loaded machine (the whole
                // suite beside it in CI) once took longer to connect, failing the test.
                retryPolicy: RetryPolicy(maxAttemptsWithoutProgress: 1), connectTimeout: .milliseconds(600))
            configuration.durability = .processCrash
            try await withSession(configuration) { session, folder in
                var ids: [TransferID] = []
                for index in 0..<6 {
                    ids.append(
                        try await session.start(
                            url: url.appendingPathComponent("files/f\(index)"),
                            destination: folder.appendingPathComponent("out/f\(index)")))
                }
                // Both connections held by the server, and a third transfer running: its request waits.
                var running = 0
                for _ in 0..<500 where server.inFlight < 2 || running < 3 {
                    try await Task.sleep(for: .milliseconds(10))
                    running = await session.transfers().filter { $0.state == .running }.count
                }
                #expect(server.inFlight == 2)
                #expect(running == 3)
                // Long enough for the waiting request to outlive the connect timeout a few times.
                try await Task.sleep(for: .milliseconds(2000))
                #expect(await session.transfers().filter { $0.state == .running }.count == 3)
                #expect(server.seen.count == 2)
                server.release.open()
                for id in ids {
                    let done = try await session.wait(for: id)
                    #expect(done.state == .completed, "\(done.failure?.message ?? "")")
                }
                #expect(server.peak == 2)
                // Each file asked for once: the requests that waited never reached the server.
                #expect(server.seen.sorted() == (0..<6).map { "f\($0)" })
                for index in 0..<6 {
                    let file = try contents(folder.appendingPathComponent("out/f\(index)"))
                    #expect(file == CountingServer.body("f\(index)"))
                }
            }
        }
    }
}
