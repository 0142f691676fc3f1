import Foundation
import ITunesSearch
import TransferEngine

extension DownloadService {
    /// A completed transfer on its way into the library.
    struct Filing {
        var id: TransferID
        var track: Track
        var file: URL
        /// The file's name in the library folder.
        var fileName: String
        var warning: String?
        var trackJSON: String?
    }

    /// Turns transfer events into the app's, in order, except that the downloads completed among
    /// them are filed in the library together, in one commit, once the others are handled.
    ///
    /// - Returns: Whether there were completed downloads among them.
    func handle(_ events: [TransferEvent]) async -> Bool {
        var completed: [(TransferID, URL)] = []
        for event in events {
            if case .completed(let id, let location) = event {
                completed.append((id, location))
            } else {
                await handle(event)
            }
        }
        if !completed.isEmpty, let hold = beforeFiling { await hold() }
        await file(completed)
        return !completed.isEmpty
    }

    /// Turns a transfer event into the app's.
    func handle(_ event: TransferEvent) async {
        let id = event.transferID
        guard let track = await track(of: id) else { return }
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
            await file([(id, location)])
        case .failed(_, let error):
            hub.emit(.failed(trackID: track.id, reason: failureReason(track, error)))
        case .retrying(_, let reason, let delay):
            hub.emit(.retrying(trackID: track.id, reason: reason, delay: delay))
        case .responded:
            break
        }
    }

    /// The track a transfer downloads, learning it from the transfer's tag the first time (a
    /// transfer started by an earlier run).
    private func track(of id: TransferID) async -> Track? {
        if let track = tracksByTransfer[id] { return track }
        guard let track = DownloadTag(await session.transfer(id)?.tag)?.track else { return nil }
        tracksByTransfer[id] = track
        transfersByTrack[track.id] = id
        return track
    }

    /// Files completed transfers in the library, in one commit (renaming a file first if the
    /// server's type calls for another extension), then forgets the transfers.
    func file(_ completed: [(TransferID, URL)]) async {
        guard !completed.isEmpty else { return }
        // One call to the session for the batch's transfers, one to forget them.
        let transfers = await session.transfers(completed.map(\.0))
        var filings: [Filing] = []
        for (id, location) in completed {
            guard let track = await track(of: id) else { continue }
            do {
                filings.append(try prepare(id, track: track, transfer: transfers[id], location: location))
            } catch {
                fail(id, track, error)
            }
        }
        guard !filings.isEmpty else { return }
        do {
            _ = try library.add(
                filings.map {
                    LibraryStore.Addition(
                        track: $0.track, fileName: $0.fileName, warning: $0.warning, trackJSON: $0.trackJSON)
                })
        } catch {
            filings.forEach { fail($0.id, $0.track, error) }
            return
        }
        var refusals: [TransferID: TransferError] = [:]
        do { refusals = try await session.forget(filings.map(\.id)) } catch {
            // Forgotten all the same: the journal's deletes wait for its next write.
            logger.error("cannot forget filed downloads in the journal", metadata: ["error": "\(error)"])
        }
        for filing in filings {
            if let refusal = refusals[filing.id] {
                fail(filing.id, filing.track, refusal)
                continue
            }
            transfersByTrack[filing.track.id] = nil
            tracksByTransfer[filing.id] = nil
            hub.emit(.stateChanged(trackID: filing.track.id, state: .downloaded))
            hub.emit(.completed(trackID: filing.track.id, file: filing.file, warning: filing.warning))
        }
    }

    /// A completed transfer's file under the name the library gives it, with its tag warning.
    private func prepare(_ id: TransferID, track: Track, transfer: TransferSnapshot?, location: URL) throws -> Filing {
        let ext = LibraryNaming.fileExtension(previewURL: track.previewURL, contentType: transfer?.contentType)
        // The transfer's path is the location's (read as text: a file URL's parts are decoded on each read).
        let path = transfer?.destinationPath
        if ext == path.flatMap(LibraryNaming.plainExtension(ofPath:)) ?? location.pathExtension {
            return Filing(
                id: id, track: track, file: location,
                fileName: path.map(LibraryNaming.fileName(ofPath:)) ?? location.lastPathComponent,
                warning: tagger.takeWarning(for: track.id), trackJSON: DownloadTag.trackJSON(transfer?.tag))
        }
        let final = location.deletingLastPathComponent()
            .appending(path: LibraryNaming.fileName(for: track, fileExtension: ext), directoryHint: .notDirectory)
        if FileManager.default.fileExists(atPath: final.path) { try FileManager.default.removeItem(at: final) }
        try FileManager.default.moveItem(at: location, to: final)
        return Filing(
            id: id, track: track, file: final, fileName: final.lastPathComponent, warning: tagger.takeWarning(for: track.id),
            trackJSON: DownloadTag.trackJSON(transfer?.tag))
    }

    private func fail(_ id: TransferID, _ track: Track, _ error: any Error) {
        let reason = "the download finished but could not be filed: \(error)"
        unfiled[id] = reason
        logger.error("cannot file a download in the library", metadata: ["track": "\(track.id)", "error": "\(error)"])
        hub.emit(.failed(trackID: track.id, reason: reason))
    }

    /// Begins `tracks` anew, forgetting first the transfers of theirs whose filing failed: their
    /// files are fetched again, and a later start of the service does not file them.
    func startOver(_ tracks: [Track]) async throws {
        let stale = tracks.compactMap { transfersByTrack[$0.id] }.filter { unfiled[$0] != nil }
        if !stale.isEmpty {
            do { _ = try await session.forget(stale) } catch {
                // Forgotten all the same: the journal's deletes wait for its next write.
                logger.error("cannot forget unfiled downloads in the journal", metadata: ["error": "\(error)"])
            }
            for id in stale {
                unfiled[id] = nil
                tracksByTransfer[id] = nil
            }
        }
        try await begin(tracks)
    }
}
