import Foundation
import ITunesSearch
import TransferEngine

extension DownloadService {
    /// Writes a library track's tags and cover into its file (`halftunes tag`): a tagged copy is
    /// written beside it, flushed, and renamed over it, so the library file is always whole.
    ///
    /// - Returns: The track's status; its `warning` says why the file stays as it was, if it does.
    public func retag(trackID: Int) async throws -> DownloadStatus {
        guard let item = try library.item(id: trackID) else {
            throw DownloadError(.notFound, "track \(trackID) is not in the library")
        }
        let path = library.path(of: item.fileName)
        let file = URL(filePath: path, directoryHint: .notDirectory)
        let tagged = URL(filePath: path + ".tagging", directoryHint: .notDirectory)
        let warning = await tagger.tag(item.track, file: path, writingTo: path + ".tagging")
        if warning == nil {
            do { try FinishedFile.move(tagged, to: file) } catch {
                try? FileManager.default.removeItem(at: tagged)
                throw error
            }
        } else {
            // One left by a run that crashed here is not replaced when this tagging fails.
            try? FileManager.default.removeItem(at: tagged)
        }
        let added = try library.add(item.track, fileName: item.fileName, warning: warning, addedAt: item.addedAt)
        hub.emit(.completed(trackID: trackID, file: file, warning: warning))
        return library.status(of: added)
    }
}
