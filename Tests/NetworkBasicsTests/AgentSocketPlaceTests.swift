import Foundation
import SystemBasics
import Testing

/// Where an agent's socket is looked for: the same place from every shell of the user, cron jobs
/// and shells without `XDG_RUNTIME_DIR` included.
@Suite("Where an agent's socket is")
struct AgentSocketPlaceTests {
    private func folder(_ environment: [String: String], runtime: String?) -> String {
        AgentSocket.resolve(folder: "a", name: "s.sock", environment: environment, userRuntimeFolder: runtime).folder.path
    }

    @Test("XDG_RUNTIME_DIR first; without it the user's runtime folder, ahead of XDG_STATE_HOME; then ~/.local/state")
    func order() {
        let all = ["XDG_RUNTIME_DIR": "/r", "XDG_STATE_HOME": "/s", "HOME": "/h"]
        #expect(folder(all, runtime: "/run/user/7") == "/r/a")
        #expect(folder(all.filter { $0.key != "XDG_RUNTIME_DIR" }, runtime: "/run/user/7") == "/run/user/7/a")
        #expect(folder(all.filter { $0.key != "XDG_RUNTIME_DIR" }, runtime: nil) == "/s/a")
        #expect(folder(["HOME": "/h"], runtime: nil) == "/h/.local/state/a")
        // A relative value is no value.
        #expect(folder(["XDG_RUNTIME_DIR": "r", "HOME": "/h"], runtime: "/run/user/7") == "/run/user/7/a")
    }

    @Test("the user's runtime folder counts only as a folder of theirs, mode 700, not through a link")
    func ownFolder() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("agent-place-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let own = scratch.appendingPathComponent("own").path
        try FileManager.default.createDirectory(
            atPath: own, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let open = scratch.appendingPathComponent("open").path
        try FileManager.default.createDirectory(
            atPath: open, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let file = scratch.appendingPathComponent("file").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data(), attributes: [.posixPermissions: 0o700]))
        let link = scratch.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: own)

        #expect(AgentSocket.ownFolder(at: own) == own)
        #expect(AgentSocket.ownFolder(at: open) == nil)
        #expect(AgentSocket.ownFolder(at: file) == nil)
        #expect(AgentSocket.ownFolder(at: link) == nil)
        #expect(AgentSocket.ownFolder(at: scratch.appendingPathComponent("missing").path) == nil)
    }
}
