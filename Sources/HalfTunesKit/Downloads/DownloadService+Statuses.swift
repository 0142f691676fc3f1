import ITunesSearch
import TransferEngine

extension DownloadService {
    /// The statuses of some tracks (a search's results): one read of the library's index.
    public func statuses(trackIDs: [Int]) async throws -> [Int: DownloadStatus] {
        var statuses = try library.items(ids: trackIDs).mapValues(library.status(of:))
        // The rest from the session, in one call (a batch of 2,000 just started asks for all),
        // for their progress alone: a track's status needs no addresses of its transfer.
        let inFlight = trackIDs.filter { statuses[$0] == nil }.compactMap { id in transfersByTrack[id].map { (id, $0) } }
        guard !inFlight.isEmpty else { return statuses }
        let progress = await session.progress(inFlight.map(\.1))
        statuses.reserveCapacity(statuses.count + inFlight.count)
        for (trackID, transferID) in inFlight {
            guard let transfer = progress[transferID], let track = tracksByTransfer[transferID] else { continue }
            statuses[trackID] = notFiledStatus(track, transferID, transfer)
        }
        return statuses
    }

    /// Downloads in flight (queued, downloading, paused, failed), in queue order. One whose
    /// transfer has completed but is not filed in the library yet is still downloading, all its
    /// bytes received: between the two a listing found the track in neither list. One whose
    /// filing failed is failed.
    public func downloads() async -> [DownloadStatus] {
        await session.transfers().compactMap { transfer in
            guard transfer.state != .cancelled,
                let track = tracksByTransfer[transfer.id] ?? DownloadTag(transfer.tag)?.track
            else { return nil }
            return notFiledStatus(track, transfer.id, transfer.progress)
        }
    }

    /// A transfer's status in a list of downloads: `nil` when cancelled, downloading with all its
    /// bytes when completed (it is not filed in the library yet).
    static func listed(_ track: Track, _ transfer: TransferProgress) -> DownloadStatus? {
        switch transfer.state {
        case .cancelled: nil
        case .completed: arrived(track, transfer)
        default: status(track, transfer)
        }
    }

    /// A completed transfer's status before its filing: downloading, all its bytes received.
    static func arrived(_ track: Track, _ transfer: TransferProgress) -> DownloadStatus {
        let bytes = transfer.expectedBytes ?? transfer.receivedBytes
        return status(track, TransferProgress(state: .running, receivedBytes: bytes, expectedBytes: bytes, failure: nil))
    }

    /// A track's status: downloaded, in flight, or `nil` when neither.
    public func status(trackID: Int) async throws -> DownloadStatus? {
        if let item = try library.item(id: trackID) { return library.status(of: item) }
        return await inFlightStatus(trackID: trackID)
    }

    /// A track's status while its download is in flight, or `nil` when it is not.
    func inFlightStatus(trackID: Int) async -> DownloadStatus? {
        guard let id = transfersByTrack[trackID], let transfer = await session.transfer(id),
            let track = tracksByTransfer[id]
        else { return nil }
        return notFiledStatus(track, id, transfer.progress)
    }

    /// A transfer's status while its track is not in the library: downloading with all its bytes
    /// when completed and being filed, failed when its filing failed.
    func notFiledStatus(_ track: Track, _ id: TransferID, _ transfer: TransferProgress) -> DownloadStatus {
        guard transfer.state == .completed else { return Self.status(track, transfer) }
        guard let reason = unfiled[id] else { return Self.arrived(track, transfer) }
        return DownloadStatus(
            track: track, state: .failed, receivedBytes: transfer.receivedBytes, expectedBytes: transfer.expectedBytes,
            failure: reason, file: nil)
    }
}
