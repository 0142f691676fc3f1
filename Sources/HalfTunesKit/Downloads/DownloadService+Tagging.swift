import Foundation
import ITunesSearch

extension DownloadService {
    /// Writes a library track's tags and cover into its file (`halftunes tag`): a tagged copy is
    /// written beside it, flushed, and renamed over it, so the library file is always whole.
    ///
    /// - Returns: The track's status; its `warning` says why the file stays as it was, if it does.
    public func retag(trackID: Int) async throws -> DownloadStatus {
        guard let item = try library.item(id: trackID) else {
            throw DownloadError(.notFound, "track \(trackID) is not in the library")
        }
        let file = library.url(of: item)
        let tagged = file.deletingLastPathComponent().appendingPathComponent(file.lastPathComponent + ".tagging")
        let warning = await tagger.tag(item.track, file: file, writingTo: tagged)
        if warning == nil { try FileReplacement.replace(file, with: tagged) }
        let added = try library.add(item.track, fileName: item.fileName, warning: warning, addedAt: item.addedAt)
        hub.emit(.completed(trackID: trackID, file: file, warning: warning))
        return library.status(of: added)
    }
}

/// Puts a finished file in place of another for good: flushed, renamed over it, folder flushed.
enum FileReplacement {
    static func replace(_ target: URL, with file: URL) throws {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw DownloadError(.internalError, "cannot open \(file.path)") }
        let flushed = fsync(descriptor) == 0
        close(descriptor)
        guard flushed, rename(file.path, target.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: file)
            throw DownloadError(.internalError, "cannot put the tagged file in place of \(target.path): \(reason)")
        }
        let folder = open(target.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }
}
