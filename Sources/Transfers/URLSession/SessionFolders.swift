import Foundation

/// Where a ``ResumableURLSession`` keeps its files.
///
/// ```
/// <stateDirectory>/sessions/<identifier>/   a background session: journal, lock, task-identifier mark
/// <stateDirectory>/sessions/<identifier>/downloads/   its partial and finished files
/// <stateDirectory>/default/downloads/       default sessions' partial and finished files
/// <temporary>/resumable-urlsession-<uuid>/  a default session's journal, removed when it is invalidated
/// ```
///
/// Partial files live under the state folder, not in a temporary folder, so resume data still
/// works in another process and after a reboot.
struct SessionFolders: Sendable {
    /// The state folder, symbolic links resolved.
    let root: URL
    /// The engine's folder (journal and lock).
    let journal: URL
    /// Where downloads are written.
    let downloads: URL
    /// Whether ``journal`` is removed at invalidation (a default session's).
    let isTemporary: Bool

    init(stateDirectory: URL, identifier: String?) {
        root = stateDirectory.standardizedFileURL.resolvingSymlinksInPath()
        if let identifier {
            journal = root.appendingPathComponent("sessions", isDirectory: true)
                .appendingPathComponent(identifier, isDirectory: true)
            downloads = journal.appendingPathComponent("downloads", isDirectory: true)
            isTemporary = false
        } else {
            journal = FileManager.default.temporaryDirectory
                .appendingPathComponent("resumable-urlsession-\(UUID().uuidString.lowercased())", isDirectory: true)
            downloads = root.appendingPathComponent("default/downloads", isDirectory: true)
            isTemporary = true
        }
    }

    /// A new file name for a download.
    func newDestination() -> URL {
        downloads.appendingPathComponent("\(UUID().uuidString.lowercased()).download")
    }

    /// Resume data's files, as the system reaches them, when they are ones a session of this state
    /// folder made: a `.part` file beside its destination, in a sessions' downloads folder
    /// (`default/downloads` or `sessions/<id>/downloads`, never a journal's folder); `nil` when not.
    /// Resume data is only trusted that far; it could otherwise make the session truncate or
    /// overwrite any file the process can write. Folders are resolved as the kernel resolves them
    /// (`link/../x` through the link), and the files are to be used by the paths returned.
    func ownedFiles(partialFile: URL, destination: URL) -> (partial: URL, destination: URL)? {
        guard partialFile.isFileURL, destination.isFileURL,
            partialFile.lastPathComponent == destination.lastPathComponent + ".part",
            let folder = Self.resolvedFolder(of: partialFile),
            Self.resolvedFolder(of: destination) == folder, isDownloadsFolder(folder)
        else { return nil }
        let partial = URL(fileURLWithPath: folder).appendingPathComponent(partialFile.lastPathComponent)
        // The file itself may not be a link pointing elsewhere.
        let attributes = try? FileManager.default.attributesOfItem(atPath: partial.path)
        guard attributes?[.type] as? FileAttributeType != .typeSymbolicLink else { return nil }
        return (partial, URL(fileURLWithPath: folder).appendingPathComponent(destination.lastPathComponent))
    }

    /// The folder of `file` with every link and `..` resolved in the order the kernel takes them;
    /// for a folder that is gone, its path as written when that has no `..` in it.
    private static func resolvedFolder(of file: URL) -> String? {
        let folder = file.deletingLastPathComponent().path
        if let resolved = realpath(folder, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let parts = folder.split(separator: "/")
        return parts.contains("..") ? nil : "/" + parts.filter { $0 != "." }.joined(separator: "/")
    }

    /// Whether `folder` (resolved) is where sessions of this state folder write downloads.
    private func isDownloadsFolder(_ folder: String) -> Bool {
        if folder == root.appendingPathComponent("default/downloads").path { return true }
        let url = URL(fileURLWithPath: folder)
        return url.lastPathComponent == "downloads"
            && url.deletingLastPathComponent().deletingLastPathComponent().path == root.appendingPathComponent("sessions").path
    }

    /// The highest task identifier a background session has given a started task (0 if none).
    func identifierMark() -> Int {
        guard !isTemporary, let text = try? String(contentsOf: markFile, encoding: .utf8) else { return 0 }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Records `identifier` as given out, so a relaunched session never gives it out again.
    func recordIdentifier(_ identifier: Int) {
        guard !isTemporary, identifier > identifierMark() else { return }
        let temporary = markFile.appendingPathExtension("new")
        do {
            try Data("\(identifier)\n".utf8).write(to: temporary)
            _ = rename(temporary.path, markFile.path)
        } catch {
            // Not fatal: identifiers then restart from the highest one the journal holds.
        }
    }

    private var markFile: URL { journal.appendingPathComponent("task-identifiers") }

    /// Removes the temporary journals of default sessions whose process ended without invalidating
    /// them: folders whose lock no process holds (the kernel releases a dead owner's `flock`).
    func sweepAbandonedJournals() -> Int {
        guard isTemporary else { return 0 }
        let temporary = journal.deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        var removed = 0
        for name in names where name.hasPrefix("resumable-urlsession-") {
            let folder = temporary.appendingPathComponent(name)
            // A folder younger than a minute may belong to a process that is still taking its lock.
            let created = (try? FileManager.default.attributesOfItem(atPath: folder.path))?[.modificationDate] as? Date
            guard folder.path != journal.path, let created, created < Date().addingTimeInterval(-60) else { continue }
            let descriptor = open(folder.appendingPathComponent("session.lock").path, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            let abandoned = flock(descriptor, LOCK_EX | LOCK_NB) == 0
            close(descriptor)
            if abandoned, (try? FileManager.default.removeItem(at: folder)) != nil { removed += 1 }
        }
        return removed
    }

    /// Removes partial and finished files older than `lifetime` that no transfer uses: what is
    /// left of resume data never used, and of processes that died.
    func sweep(keeping inUse: Set<String>, olderThan lifetime: TimeInterval) -> Int {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: downloads.path) else { return 0 }
        let cutoff = Date().addingTimeInterval(-lifetime)
        var removed = 0
        for name in names where name.hasSuffix(".part") || name.hasSuffix(".download") {
            let path = downloads.appendingPathComponent(name).path
            guard !inUse.contains(path),
                let modified = (try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                modified < cutoff
            else { continue }
            if (try? manager.removeItem(atPath: path)) != nil { removed += 1 }
        }
        return removed
    }
}
