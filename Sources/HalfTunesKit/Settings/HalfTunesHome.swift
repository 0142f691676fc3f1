import Foundation

/// Where HalfTunes keeps its data: the library of finished downloads and the transfer session.
///
/// Resolved as `--home`, else `HALFTUNES_HOME`, else `$XDG_DATA_HOME/halftunes`, else
/// `~/.local/share/halftunes`.
public struct HalfTunesHome: Sendable, Hashable {
    /// The home folder itself.
    public let root: URL

    /// Uses `root` as the home folder.
    public init(root: URL) {
        self.root = root.standardizedFileURL
    }

    /// Resolves the home folder from an explicit choice and the environment.
    public static func resolve(
        explicit: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> HalfTunesHome {
        func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        if let path = nonEmpty(explicit) ?? nonEmpty(environment["HALFTUNES_HOME"]) {
            return HalfTunesHome(root: URL(fileURLWithPath: expandTilde(path, environment: environment)))
        }
        if let xdg = nonEmpty(environment["XDG_DATA_HOME"]), xdg.hasPrefix("/") {
            return HalfTunesHome(root: URL(fileURLWithPath: xdg).appendingPathComponent("halftunes"))
        }
        let home = nonEmpty(environment["HOME"]) ?? NSHomeDirectory()
        return HalfTunesHome(root: URL(fileURLWithPath: home).appendingPathComponent(".local/share/halftunes"))
    }

    /// Finished downloads: `<home>/library`.
    public var library: URL { root.appendingPathComponent("library", isDirectory: true) }
    /// The transfer session (journal and partial files): `<home>/session`.
    public var session: URL { root.appendingPathComponent("session", isDirectory: true) }
    /// What can be fetched again (cover art for tags): `<home>/cache`.
    public var cache: URL { root.appendingPathComponent("cache", isDirectory: true) }
    /// The library's index (which track is which file).
    public var libraryIndex: URL { root.appendingPathComponent("library.sqlite") }

    /// Whether this process cannot write the home: the folder (or, before it exists, the nearest
    /// folder above it), its library or its session is on a read-only file system or not
    /// writable by this user. Commands that only look (`list`, `search`, `play`) still work then.
    public var isReadOnly: Bool {
        var folder = root.path
        while !FileManager.default.fileExists(atPath: folder), folder != "/" {
            folder = (folder as NSString).deletingLastPathComponent
        }
        let folders: [String] = [folder] + [library.path, session.path].filter { FileManager.default.fileExists(atPath: $0) }
        return folders.contains { (path: String) in access(path, W_OK) != 0 }
    }

    private static func expandTilde(_ path: String, environment: [String: String]) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + path.dropFirst()
    }
}
