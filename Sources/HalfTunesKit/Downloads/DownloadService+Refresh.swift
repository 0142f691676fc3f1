import Foundation
import ITunesSearch
import TransferEngine

extension DownloadService {
    /// Sets how a track is looked up again when its preview URL has gone stale (the CDN answers
    /// 403, 404 or 410): the download goes on from the catalog's fresh URL, once a run, keeping
    /// the bytes on disk when that server confirms their version (`If-Range`).
    public func setRefresher(_ refresher: @escaping @Sendable (Int) async -> Track?) async {
        self.refresher = refresher
        await session.setFreshURLLookup { [weak self] transfer, stale, status in
            await self?.freshURL(for: transfer, stale: stale, status: status)
        }
    }

    /// The catalog's fresh preview URL for the track `transfer` downloads, whose URL `stale`
    /// answered `status`; `nil` when the catalog gives no other. The track's journaled tag takes
    /// the fresh track, so a later run starts from its URL.
    func freshURL(for transfer: TransferID, stale: URL, status: Int) async -> URL? {
        guard let refresher, let track = tracksByTransfer[transfer] else { return nil }
        staleURLs[track.id] = .some(nil)
        guard let fresh = await refresher(track.id), let url = fresh.previewURL, url != stale else {
            logger.info("stale preview URL, and no other", metadata: ["track": "\(track.id)", "url": "\(stale)"])
            return nil
        }
        logger.info("stale preview URL: going on from the catalog's new one", metadata: ["track": "\(track.id)"])
        staleURLs[track.id] = stale
        if tracksByTransfer[transfer] != nil { tracksByTransfer[transfer] = fresh }
        let writesTags = DownloadTag(await session.transfer(transfer)?.tag)?.writesTags ?? true
        try? await session.setTag(DownloadTag(track: fresh, writesTags: writesTags).encoded, for: transfer)
        hub.emit(.retrying(trackID: track.id, reason: "HTTP \(status) for the preview's URL; looked it up again", delay: .zero))
        return url
    }

    /// A failure's reason, naming the stale URL too when the download had gone on from a fresh one.
    func failureReason(_ track: Track, _ error: TransferError) -> String {
        switch staleURLs[track.id] {
        case .none: return Self.reason(error)
        case .some(.none): return Self.reason(error) + " (looked up again: the catalog still gives this URL)"
        case .some(.some(let stale)): return Self.reason(error) + " (a fresh URL, looked up after \(stale) failed)"
        }
    }

    /// A transfer's failure in HalfTunes' words.
    static func reason(_ error: TransferError) -> String {
        error.code == .finishingInterrupted ? "HalfTunes stopped while finishing this file; kept as downloaded" : error.message
    }
}
