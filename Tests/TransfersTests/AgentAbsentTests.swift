import DemoCatalog
import Foundation
import Logging
import TestSupport
import Testing

@testable import Transfers

/// A background session with no transfer agent to hand its tasks to: it works in its own process,
/// exactly as before the agent, and says so once in its log. (The agent itself, with real
/// processes, is tested with the example: `BackgroundAgentTests`.)
@Suite("A background session with no agent", .timeLimit(.minutes(1)))
struct AgentAbsentTests {
    @Test("no agent answers and none is named to start: the download runs in this process, said once in the log")
    func noAgent() async throws {
        try await withDemoCatalog { catalog, base in
            try await withTemporaryDirectory { folder in
                let configuration = background("no-agent.test", in: folder)
                configuration.agentExecutable = nil
                let log = ClientLoggingTests.Recorder()
                configuration.logger = log.logger(.info)
                let recorder = DelegateRecorder()
                let session = ResumableURLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
                defer { session.invalidateAndCancel() }
                for id in [1001, 1002] {
                    let task = session.downloadTask(with: previewURL(base, id))
                    task.resume()
                    #expect(await recorder.completion(of: task) == nil)
                    #expect(sameBytes(recorder.file(of: task), await catalog.preview(for: id)?.data))
                }
                let said = log.messages.withLock { $0.filter { $0.message.contains("transfer agent") } }
                #expect(said.count == 1, "\(said.map(\.message))")
                #expect(said.first?.level == .notice)
                #expect(said.first?.message.hasPrefix("the transfer agent does not hold this background session") == true)
                #expect(said.first?.metadata["reason"].map { "\($0)".contains("no agent answers on") } == true)
            }
        }
    }

    @Test("TRANSFERS_AGENT=0 turns the agent off: nothing asked, nothing said, the download runs here")
    func turnedOff() async throws {
        try await withDemoCatalog { catalog, base in
            try await withTemporaryDirectory { folder in
                let configuration = background("agent-off.test", in: folder, environment: ["TRANSFERS_AGENT": "0"])
                let log = ClientLoggingTests.Recorder()
                configuration.logger = log.logger(.trace)
                let recorder = DelegateRecorder()
                let session = ResumableURLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
                defer { session.invalidateAndCancel() }
                let task = session.downloadTask(with: previewURL(base, 1003))
                task.resume()
                #expect(await recorder.completion(of: task) == nil)
                #expect(sameBytes(recorder.file(of: task), await catalog.preview(for: 1003)?.data))
                #expect(log.messages.withLock { $0.filter { $0.message.contains("transfer agent") } }.isEmpty)
            }
        }
    }

    /// A background configuration whose state and agent's socket are in `folder`: an empty
    /// runtime folder of the test's own, where nothing listens (plus `environment`).
    private func background(
        _ identifier: String, in folder: URL, environment: [String: String] = [:]
    ) -> ResumableURLSessionConfiguration {
        let configuration = ResumableURLSessionConfiguration.background(withIdentifier: identifier)
        configuration.stateDirectory = folder.appendingPathComponent("state")
        configuration.agentEnvironment = environment.merging(["XDG_RUNTIME_DIR": folder.appendingPathComponent("run").path]) {
            $1
        }
        return configuration
    }
}
