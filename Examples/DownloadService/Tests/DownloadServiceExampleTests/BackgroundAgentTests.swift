import DemoCatalog
import Foundation
import SystemBasics
import TestSupport
import Testing
import Transfers

/// The example's background session handed to the transfer agent (`transfers-agent`, started by
/// the session itself; no `halftunes` involved): killed with SIGKILL, its downloads go on without it, and the next process
/// with its identifier is handed the files.
@Suite("download-service and the transfer agent", .timeLimit(.minutes(1)))
struct BackgroundAgentTests {
    /// The example's environment: its state, the agent's socket and home all in `folder`, the agent
    /// named by `TRANSFERS_AGENT`.
    private func environment(_ folder: URL, catalog: URL) throws -> [String: String] {
        [
            "XDG_STATE_HOME": folder.path, "XDG_RUNTIME_DIR": folder.appendingPathComponent("run").path,
            "XDG_DATA_HOME": folder.appendingPathComponent("data").path,
            "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path, "HOME": folder.path,
            "HALFTUNES_CATALOG": catalog.absoluteString,
            "TRANSFERS_AGENT": try BuiltProducts.executable("transfers-agent").path,
        ]
    }

    @Test(
        "killed with SIGKILL mid-download: the agent finishes both files; the next process gets both and the end of events once")
    func agentFinishesAfterKill() async throws {
        let ids = [1014, 1015]
        try await withExample(ids, bytesPerSecond: 400_000) { catalog, base, folder, environment, socket, music in
            // Mid-download whatever the machine's speed: the bodies wait at 300 KB until released.
            for id in ids { catalog.hold(id, atByte: 300_000) }
            let first = try await fetching(ids, from: base, into: music, environment: environment, atLeast: 100_000)
            // The session started the agent, which answers on its socket as this user.
            guard case .answered(let agent) = PeerCredentials.probe(socketAt: socket) else {
                Issue.record("no agent answers on \(socket)")
                return
            }
            #expect(agent.pid != first.pid)
            // Its status, asked with curl: this session, watched (its process lives), nothing else.
            let status = try await ChildProcess(
                URL(fileURLWithPath: "/usr/bin/curl"), ["-sS", "--unix-socket", socket, "http://agent/api/agent"],
                environment: environment
            ).wait()
            let said = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
            #expect(said?["pid"] as? Int == Int(agent.pid), "\(status.stdout)\(status.stderr)")
            let sessions = said?["backgroundSessions"] as? [[String: Any]]
            #expect(sessions?.count == 1 && sessions?.first?["identifier"] as? String == "org.example.songs", "\(status.stdout)")
            #expect(sessions?.first?["pid"] as? Int == Int(first.pid) && sessions?.first?["running"] as? Bool == false)

            // Nothing more is sent on any connection (the agent's included) until the release: what
            // the killed process wrote stays on disk as it left it, for the agent to go on from.
            for id in ids { catalog.hold(id, atByte: 0) }
            first.signal(SIGKILL)
            #expect(await first.wait().signaled)
            let downloads = folder.appendingPathComponent("resumable-urlsession/sessions/org.example.songs/downloads")
            let resumedAsked = await eventually(within: .seconds(20)) {
                ids.allSatisfy { id in catalog.previewRequests.filter { $0.trackId == id }.count == 2 }
            }
            #expect(resumedAsked, "\(catalog.previewRequests)")
            let left = Set(fileSizes(in: downloads))
            let sentToTheKilled = ids.map { catalog.bytesSent(for: $0) }
            for id in ids {
                catalog.setFaults(PreviewFaults(), for: id)
                catalog.release(id)
            }

            // With no process of the example left, the agent finishes both files in the session's folder.
            var sizes = Set<Int>()
            for id in ids { sizes.insert(try #require(await catalog.preview(for: id)).data.count) }
            let finished = await eventually(within: .seconds(30)) {
                let names = filesIn(downloads)
                guard names.count == 2, names.allSatisfy({ $0.hasSuffix(".download") }) else { return false }
                return Set(fileSizes(in: downloads)) == sizes
            }
            #expect(finished, "\(filesIn(downloads))")
            let requests = catalog.previewRequests.count
            var offsets = Set<Int>()
            for (id, sentBefore) in zip(ids, sentToTheKilled) {
                // The server's log: the agent asked only for what the killed process had not written.
                let asked = catalog.previewRequests.filter { $0.trackId == id }
                #expect(asked.count == 2, "\(asked)")
                #expect(asked.last?.status == 206)
                let offset = try #require(asked.last?.range.flatMap { Int($0.dropFirst(6).dropLast()) })
                offsets.insert(offset)
                // Counted by the server since the release: the rest once, and what it wrote into the
                // killed process's connection before it noticed that was closed (a chunk or two).
                let size = try #require(await catalog.preview(for: id)).data.count
                let sentSince = catalog.bytesSent(for: id) - sentBefore
                #expect(sentSince >= size - offset && sentSince <= size - offset + 128 * 1024, "\(sentSince) after \(offset)")
            }
            #expect(offsets == left, "asked from \(offsets), the killed process left \(left)")

            let lines = try await recovered(into: music, environment: environment)
            for id in ids {
                let preview = try #require(await catalog.preview(for: id))
                #expect(lines.filter { $0.hasPrefix("saved \(id).wav ") }.count == 1, "\(lines)")
                #expect(sha256Hex(try Data(contentsOf: music.appendingPathComponent("\(id).wav"))) == sha256Hex(preview.data))
            }
            // Handed over from disk: nothing fetched again.
            #expect(catalog.previewRequests.count == requests)
            #expect(filesIn(downloads).isEmpty)
        }
    }

    @Test(
        "a new process while the agent still downloads: the agent hands the session back, the process finishes from the bytes on disk"
    )
    func handedBackWhileRunning() async throws {
        let ids = [1016, 1017]
        try await withExample(ids, bytesPerSecond: 300_000) { catalog, base, folder, environment, socket, music in
            // The bodies wait at 200 KB: the agent is still downloading when the new process comes,
            // whatever the machine's speed; they are released once that process has asked for the rest.
            for id in ids { catalog.hold(id, atByte: 200_000) }
            let first = try await fetching(ids, from: base, into: music, environment: environment, atLeast: 50_000)
            first.signal(SIGKILL)
            #expect(await first.wait().signaled)
            // The agent asks for the rest of each file.
            let agentAsked = await eventually(within: .seconds(20)) {
                ids.allSatisfy { id in catalog.previewRequests.filter { $0.trackId == id }.count == 2 }
            }
            #expect(agentAsked, "\(catalog.previewRequests)")
            for id in ids { catalog.setFaults(PreviewFaults(), for: id) }

            async let relaunched = recovered(into: music, environment: environment)
            let processAsked = await eventually(within: .seconds(20)) {
                ids.allSatisfy { id in catalog.previewRequests.filter { $0.trackId == id }.count == 3 }
            }
            #expect(processAsked, "\(catalog.previewRequests)")
            for id in ids { catalog.release(id) }
            let lines = try await relaunched
            for id in ids {
                let preview = try #require(await catalog.preview(for: id))
                #expect(sha256Hex(try Data(contentsOf: music.appendingPathComponent("\(id).wav"))) == sha256Hex(preview.data))
                // The new process went on where the agent stopped: a third request, for the rest.
                let asked = catalog.previewRequests.filter { $0.trackId == id }
                #expect(asked.count == 3, "\(asked)")
                #expect(asked.last?.status == 206)
                #expect(lines.contains { $0.hasPrefix("resumed \(id).wav ") }, "\(lines)")
                #expect(catalog.bytesSent(for: id) <= preview.data.count + 2 * 128 * 1024, "\(asked)")
            }
        }
    }

    @Test("killed inside didFinishDownloadingTo: no event is lost; the next process is handed that file again, then the rest")
    func killedMidDelivery() async throws {
        let ids = [1018, 1019]
        try await withExample(ids, bytesPerSecond: 400_000) { catalog, base, folder, environment, socket, music in
            for id in ids { catalog.hold(id, atByte: 200_000) }
            let first = try await fetching(ids, from: base, into: music, environment: environment, atLeast: 1)
            first.signal(SIGKILL)
            _ = await first.wait()
            for id in ids {
                catalog.setFaults(PreviewFaults(), for: id)
                catalog.release(id)
            }
            // The agent finishes both files while no process of the example runs.
            let downloads = folder.appendingPathComponent("resumable-urlsession/sessions/org.example.songs/downloads")
            let finished = await eventually(within: .seconds(30)) {
                filesIn(downloads).filter { $0.hasSuffix(".download") }.count == 2
            }
            #expect(finished, "\(filesIn(downloads))")
            let requests = catalog.previewRequests.count

            // Killed inside the delegate, right after saving the first file.
            let crashed = try await ChildProcess(
                try BuiltProducts.executable("download-service"),
                ["recover", "--background", "org.example.songs", "--to", music.path, "--crash-after-saving", "1"],
                environment: environment
            ).wait()
            #expect(crashed.signaled)
            let crashedLines = crashed.stdout.split(separator: "\n")
            #expect(crashedLines.filter { $0.hasPrefix("saved ") }.count == 1, "\(crashedLines)")
            #expect(!crashedLines.contains("background-events-delivered"))

            // The next process: the file it was handed when killed, again, and the other.
            let lines = try await recovered(into: music, environment: environment)
            for id in ids {
                #expect(lines.filter { $0.hasPrefix("saved \(id).wav ") }.count == 1, "\(lines)")
                let preview = try #require(await catalog.preview(for: id))
                #expect(sha256Hex(try Data(contentsOf: music.appendingPathComponent("\(id).wav"))) == sha256Hex(preview.data))
            }
            #expect(catalog.previewRequests.count == requests)
            #expect(filesIn(downloads).isEmpty)
        }
    }

    /// Runs `body` with a DemoCatalog whose previews of `ids` are sent at `bytesPerSecond`, a
    /// folder for the example's state, music and agent, its environment, the agent's socket and
    /// the music folder; stops the agent afterwards.
    private func withExample(
        _ ids: [Int], bytesPerSecond: Int,
        _ body: (DemoCatalog, URL, URL, [String: String], String, URL) async throws -> Void
    ) async throws {
        try await withDemoCatalog { catalog, base in
            for id in ids { catalog.setFaults(PreviewFaults(bytesPerSecond: bytesPerSecond), for: id) }
            try await withTemporaryDirectory { folder in
                let socket = folder.appendingPathComponent("run/transfers/agent.sock").path
                do {
                    try await body(
                        catalog, base, folder, try environment(folder, catalog: base), socket,
                        folder.appendingPathComponent("Music"))
                } catch {
                    await stopAgent(socket: socket)
                    throw error
                }
                await stopAgent(socket: socket)
            }
        }
    }

    /// The lines of `download-service recover` of the session, which must end well (exit 0)
    /// having said once that its background events were delivered.
    private func recovered(into music: URL, environment: [String: String]) async throws -> [String] {
        let relaunched = try await ChildProcess(
            try BuiltProducts.executable("download-service"),
            ["recover", "--background", "org.example.songs", "--to", music.path], environment: environment
        ).wait()
        #expect(relaunched.status == 0, "\(relaunched.stderr)")
        let lines = relaunched.stdout.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0 == "background-events-delivered" }.count == 1, "\(lines)")
        return lines
    }

    /// The example fetching `ids` in the background session `org.example.songs`, returned once
    /// each has at least `bytes` on disk (as its progress lines say).
    private func fetching(
        _ ids: [Int], from base: URL, into music: URL, environment: [String: String], atLeast bytes: Int
    ) async throws -> ChildProcess {
        let process = try ChildProcess(
            try BuiltProducts.executable("download-service"),
            ["fetch", "--background", "org.example.songs", "--to", music.path] + ids.map { "\(base)/previews/\($0).wav" },
            environment: environment)
        for id in ids {
            let seen = await process.waitForLine { line -> Bool? in
                let fields = line.split(separator: " ")
                return fields.count == 4 && fields[1] == "\(id).wav" && (Int(fields[2]) ?? 0) >= bytes ? true : nil
            }
            #expect(seen == true, "\(process.stdoutSoFar)")
        }
        return process
    }

    /// The sizes of the files in `folder`.
    private func fileSizes(in folder: URL) -> [Int] {
        filesIn(folder).compactMap {
            (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent($0).path))?[.size] as? Int
        }
    }

    /// Stops the agent that answers on `socket`, waiting until it has ended.
    private func stopAgent(socket: String) async {
        guard case .answered(let agent) = PeerCredentials.probe(socketAt: socket) else { return }
        kill(agent.pid, SIGTERM)
        _ = await eventually(within: .seconds(10)) { kill(agent.pid, 0) != 0 }
    }
}
