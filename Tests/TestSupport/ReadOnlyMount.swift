import Foundation

/// Runs a program with a folder mounted read-only in a mount namespace of its own (`unshare -r -m`,
/// then a read-only bind mount): a read-only file system, as root or not, leaving the folder
/// writable for everyone else.
public enum ReadOnlyMount {
    /// Whether this machine lets a process make such a namespace (tests that need one are skipped,
    /// saying why, when not).
    public static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ro-probe-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (program, arguments) = command(
            folder, URL(fileURLWithPath: "/bin/sh"), ["-c", "! touch \"$0/x\" 2>/dev/null", folder.path])
        guard let ended = try? Spawn.run(program.path, arguments) else { return false }
        return ended == (0, false)
    }()

    /// The program and arguments that run `executable arguments` with `folder` read-only.
    public static func command(_ folder: URL, _ executable: URL, _ arguments: [String]) -> (URL, [String]) {
        let script = "mount --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\" && exec \"$@\""
        return (
            URL(fileURLWithPath: "/usr/bin/unshare"), ["-r", "-m", "sh", "-c", script, folder.path, executable.path] + arguments
        )
    }

    /// Runs `executable arguments` to the end with `folder` read-only.
    public static func run(
        _ folder: URL, _ executable: URL, _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> ChildProcess.Result {
        let (program, all) = command(folder, executable, arguments)
        return try await ChildProcess.run(program, all, environment: environment)
    }
}
