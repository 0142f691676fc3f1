import Foundation

/// A real full disk: a tiny tmpfs, where the environment lets the tests mount one (root on Linux).
public enum TinyFilesystem {
    public static let available: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("halftunes-mount-probe-\(getpid())")
        try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: probe) }
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path]) else { return false }
        _ = run("/bin/umount", [probe.path])
        return true
    }()

    @discardableResult
    public static func run(_ tool: String, _ arguments: [String]) -> Bool {
        guard let ended = try? Spawn.run(tool, arguments) else { return false }
        return ended == (0, false)
    }

    /// Runs `body` with a tmpfs of `size` (mount's notation: `512k`, `1m`) mounted at
    /// `folder/tiny`, unmounted afterwards however `body` ends.
    public static func withMounted<T>(in folder: URL, size: String, _ body: (URL) async throws -> T) async throws -> T {
        let tiny = folder.appendingPathComponent("tiny")
        try FileManager.default.createDirectory(at: tiny, withIntermediateDirectories: true)
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", tiny.path]) else {
            throw MountFailure(what: "mount a tmpfs of \(size) at \(tiny.path)")
        }
        defer { run("/bin/umount", ["-l", tiny.path]) }
        return try await body(tiny)
    }

    /// Gives the tmpfs at `tiny` a new size: room made, or taken.
    public static func resize(_ tiny: URL, to size: String) throws {
        guard run("/bin/mount", ["-o", "remount,size=\(size)", tiny.path]) else {
            throw MountFailure(what: "resize \(tiny.path) to \(size)")
        }
    }

    /// A mount that failed.
    public struct MountFailure: Error, CustomStringConvertible {
        public let what: String
        public var description: String { "cannot \(what)" }
    }
}
