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

    /// How many of `home`'s downloads its last owner left queued or running when it ended (killed,
    /// say) — none while an owner runs, and never those the user paused: what an agent started
    /// now would take up. Read without opening anything.
    public static func orphanedDownloads(home: HalfTunesHome) -> Int {
        guard !TransferSession.hasLiveOwner(identifier: sessionIdentifier, directory: home.session),
            let transfers = try? TransferSession.recordedTransfers(identifier: sessionIdentifier, directory: home.session)
        else { return 0 }
        return transfers.count { $0.state == .queued || $0.state == .running }
    }

    /// Whether `home` holds an unfinished download begun with tagging on (read without opening
    /// anything): a service opened with tagging off still tags those as they finish.
    static func hasUnfinishedTagged(home: HalfTunesHome) -> Bool {
        guard let transfers = try? TransferSession.recordedTransfers(identifier: sessionIdentifier, directory: home.session)
        else { return false }
        return transfers.contains { transfer in
            transfer.state != .completed && transfer.state != .cancelled && DownloadTag(transfer.tag)?.writesTags == true
        }
    }

    /// The library file of a track, if downloaded. Always inside the library folder.
    public func file(of trackID: Int) throws -> URL? {
        try library.item(id: trackID).map(library.url(of:))
    }

    /// The partial file of a download in flight with bytes on disk, to play before it ends (read
    /// it, never write it); `nil` when the track is not downloading or nothing has arrived yet.
    public func partialFile(trackID: Int) async -> URL? {
        guard let id = transfersByTrack[trackID], let transfer = await session.transfer(id),
            transfer.state != .completed, transfer.state != .cancelled, transfer.receivedBytes > 0
        else { return nil }
        return transfer.partialFile
    }

    /// Whether a track is still on its way: queued, downloading or paused (not failed, not
    /// cancelled, not yet in the library).
    public func isUnderway(trackID: Int) async -> Bool {
        await transferState(ofTrack: trackID).map { [.queued, .running, .paused].contains($0) } ?? false
    }

    /// Whether a track's download is still running (or queued), or has completed and is being
    /// filed in the library: its length, or its file, is yet to come. Not for a paused, failed or
    /// cancelled one, nor one already filed.
    public func isArriving(trackID: Int) async -> Bool {
        if (try? library.item(id: trackID)) != nil { return false }
        return await transferState(ofTrack: trackID).map { [.queued, .running, .completed].contains($0) } ?? false
    }

    /// The state of a track's transfer, if the session has one.
    private func transferState(ofTrack trackID: Int) async -> TransferState? {
        guard let id = transfersByTrack[trackID] else { return nil }
        return await session.transfer(id)?.state
    }
}
