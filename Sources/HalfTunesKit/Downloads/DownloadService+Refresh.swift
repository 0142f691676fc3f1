import Foundation
import ITunesSearch
import TransferEngine

extension DownloadService {
    /// Sets how a track is looked up again when its preview URL has gone stale (the CDN answers
    /// 403, 404 or 410): the download starts once more with the catalog's fresh URL, once.
    public func setRefresher(_ refresher: @escaping @Sendable (Int) async -> Track?) {
        self.refresher = refresher
    }

    /// Starts `track` again with a fresh preview URL when `error` says its URL has gone stale, it
    /// has not been refreshed yet, and the catalog now gives another URL.
    ///
    /// - Returns: Whether it started again (the failure is then not reported).
    func refreshes(_ track: Track, transfer: TransferID, after error: TransferError) async -> Bool {
        guard error.code == .httpStatus, let status = error.httpStatus, [403, 404, 410].contains(status),
            let refresher, let stale = track.previewURL, staleURLs[track.id] == nil
        else { return false }
        staleURLs[track.id] = .some(nil)
        guard let fresh = await refresher(track.id), let url = fresh.previewURL, url != stale else {
            logger.info("stale preview URL, and no other", metadata: ["track": "\(track.id)", "url": "\(stale)"])
            return false
        }
        logger.info("stale preview URL: starting again with the catalog's new one", metadata: ["track": "\(track.id)"])
        staleURLs[track.id] = stale
        hub.emit(.retrying(trackID: track.id, reason: "HTTP \(status) for the preview's URL; looked it up again", delay: .zero))
        try? await session.forget(transfer)
        transfersByTrack[track.id] = nil
        tracksByTransfer[transfer] = nil
        do {
            try await begin([fresh])
            return true
        } catch {
            return false
        }
    }

    /// A failure's reason, naming the stale URL too when the download had started again with a fresh one.
    func failureReason(_ track: Track, _ error: TransferError) -> String {
        switch staleURLs[track.id] {
        case .none: return error.message
        case .some(.none): return error.message + " (looked up again: the catalog still gives this URL)"
        case .some(.some(let stale)): return error.message + " (a fresh URL, looked up after \(stale) failed)"
        }
    }
}
