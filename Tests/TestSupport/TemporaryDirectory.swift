import Foundation

/// A fresh folder for one test, removed afterwards. Its name carries this process's id, so a later
/// run can tell that a folder left behind (the test process was killed) is nobody's.
public func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    _ = sweptLeftovers
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("halftunes-test-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    let result: Result<T, any Error>
    do { result = .success(try await body(url)) } catch { result = .failure(error) }
    await TestAgents.stop(homesIn: url)
    try? FileManager.default.removeItem(at: url)
    return try result.get()
}

/// Sweeps once per test process, before its first temporary folder.
private let sweptLeftovers: Int = TestLeftovers.sweep()

/// What killed test runs leave in the temporary folder: `halftunes-test-<pid>-…` folders (and tmpfs
/// mounts inside them) and `halftunes-mount-probe-<pid>` folders whose process is gone.
public enum TestLeftovers {
    /// Unmounts and removes every leftover whose process no longer exists; returns how many.
    @discardableResult
    public static func sweep(in folder: URL = FileManager.default.temporaryDirectory) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let mounts = ((try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? "")
            .split(separator: "\n").compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) }
        var removed = 0
        for name in names {
            guard let pid = owner(of: name), !isAlive(pid) else { continue }
            let path = folder.appendingPathComponent(name).path
            for mount in mounts where mount == path || mount.hasPrefix(path + "/") {
                _ = try? Spawn.run("/bin/umount", ["-l", mount])
            }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed += 1 }
        }
        return removed
    }

    /// The pid in a leftover's name, if it is one of ours.
    static func owner(of name: String) -> pid_t? {
        for prefix in ["halftunes-test-", "halftunes-mount-probe-"] where name.hasPrefix(prefix) {
            return pid_t(name.dropFirst(prefix.count).prefix { $0.isNumber })
        }
        return nil
    }

    /// Whether a process with this id exists.
    static func isAlive(_ pid: pid_t) -> Bool { kill(pid, 0) == 0 || errno == EPERM }
}

/// The names of the files in a folder (recursively, relative), sorted.
public func filesIn(_ folder: URL) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: folder.path)
    var names: [String] = []
    while let name = enumerator?.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isDirectory),
            !isDirectory.boolValue
        {
            names.append(name)
        }
    }
    return names.sorted()
}
