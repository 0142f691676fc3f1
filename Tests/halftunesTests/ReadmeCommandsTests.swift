import Foundation
import TestSupport
import Testing

/// The README's first screen shows two commands; CI and the app must be those very commands.
@Suite("The README's two commands")
struct ReadmeCommandsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The lines of the README's first `sh` block, comments removed.
    static func commands() throws -> [String] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try #require(
            readme.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        return block.split(separator: "\n").map { line in
            String(line.split(separator: "#", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces)
        }
    }

    @Test("one runs the app (the offline demo), one runs every test, and .ci/run runs exactly that one")
    func twoCommands() throws {
        let commands = try Self.commands()
        #expect(commands == ["swift run halftunes demo", "scripts/test"])
        let ci = try String(contentsOf: Self.root.appendingPathComponent(".ci/run"), encoding: .utf8)
        let executed = ci.split(separator: "\n").filter { !$0.hasPrefix("#") && $0.contains("scripts/") }
        #expect(executed == ["exec scripts/test"])
        // scripts/fresh-check reads the same block, so a newcomer's path is the tested one.
        let fresh = try String(contentsOf: Self.root.appendingPathComponent("scripts/fresh-check"), encoding: .utf8)
        #expect(fresh.contains("/^```sh$/"))
    }

    @Test("the README's app command names a command the program has")
    func demoExists() async throws {
        let help = try await ChildProcess.run(try BuiltProducts.halftunes, ["help", "demo"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("offline DemoCatalog"))
    }
}
