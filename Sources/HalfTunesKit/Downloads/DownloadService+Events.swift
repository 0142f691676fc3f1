import Foundation
import ITunesSearch
import TransferEngine

extension DownloadService {
    /// Turns a transfer event into the app's, filing completed downloads in the library first.
    func handle(_ event: TransferEvent) async {
        let id = event.transferID
        if tracksByTransfer[id] == nil, let track = DownloadTag(await session.transfer(id)?.tag)?.track {
            tracksByTransfer[id] = track
            transfersByTrack[track.id] = id
        }
        guard let track = tracksByTransfer[id] else { return }
        switch event {
        case .progress(_, let received, let expected):
            hub.emit(.progress(trackID: track.id, received: received, expected: expected))
        case .stateChanged(_, let state):
            if state == .cancelled {
                tagger.forget(id)
                transfersByTrack[track.id] = nil
                tracksByTransfer[id] = nil
                hub.emit(.removed(trackID: track.id))
            } else if state != .completed {
                hub.emit(.stateChanged(trackID: track.id, state: Self.state(state)))
            }
        case .completed(_, let location):
            await file(id, location: location)
        case .failed(_, let error):
            hub.emit(.failed(trackID: track.id, reason: error.message))
        case .responded:
            break
        }
    }

    /// Files a completed transfer in the library (renaming it if the server's type calls for
    /// another extension), then forgets the transfer.
    func file(_ id: TransferID, location: URL) async {
        guard let track = tracksByTransfer[id] else { return }
        var final = location
        var warning: String?
        do {
            let transfer = await session.transfer(id)
            let contentType = transfer?.contentType
            let ext = LibraryNaming.fileExtension(previewURL: track.previewURL, contentType: contentType)
            if ext != location.pathExtension {
                final = location.deletingLastPathComponent()
                    .appending(path: LibraryNaming.fileName(for: track, fileExtension: ext), directoryHint: .notDirectory)
                if FileManager.default.fileExists(atPath: final.path) { try FileManager.default.removeItem(at: final) }
                try FileManager.default.moveItem(at: location, to: final)
            }
            warning = tagger.takeWarning(for: track.id)
            _ = try library.add(
                track, fileName: final.lastPathComponent, warning: warning, trackJSON: DownloadTag.trackJSON(transfer?.tag))
            try await session.forget(id)
        } catch {
            logger.error("cannot file a download in the library", metadata: ["track": "\(track.id)", "error": "\(error)"])
            hub.emit(.failed(trackID: track.id, reason: "the download finished but could not be filed: \(error)"))
            return
        }
        transfersByTrack[track.id] = nil
        tracksByTransfer[id] = nil
        hub.emit(.stateChanged(trackID: track.id, state: .downloaded))
        hub.emit(.completed(trackID: track.id, file: final, warning: warning))
    }
}
