import Foundation
import TransferEngine

extension DownloadService {
    /// The downloads of `home` as the process that owns them (a foreground `halftunes download`)
    /// last recorded them, in queue order, read without opening them: nothing is locked, written
    /// or resumed. Listed as ``downloads()`` lists them; a running one's bytes are those on disk.
    public static func recordedDownloads(home: HalfTunesHome) throws -> [DownloadStatus] {
        try TransferSession.recordedTransfers(identifier: sessionIdentifier, directory: home.session).compactMap {
            transfer in
            DownloadTag(transfer.tag).flatMap { listed($0.track, transfer.progress) }
        }
    }
}
