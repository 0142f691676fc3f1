import Foundation

extension TransferSession {
    /// Every transfer recorded by the session `identifier` in `directory`, in queue order, read
    /// without opening the session: no lock taken, nothing written, nothing resumed. For a look
    /// at a session that another process owns, which ``open(identifier:directory:configuration:clock:logger:)``
    /// refuses with `.sessionLocked` (a listing beside a foreground `halftunes download`).
    ///
    /// Each transfer is as its owner last committed it to the journal, except where its partial
    /// file says more: the owner journals neither a start nor the bytes received between
    /// checkpoints, so while a live process owns the session, a transfer journaled as queued or
    /// running whose partial file holds more bytes than journaled is running, with the bytes its
    /// file holds now (one started with nothing on disk yet still reads as queued). When no
    /// process owns it (closed, or its owner killed), nothing runs: such a transfer is queued with
    /// the bytes on disk, as opening the session would make it; a paused or failed one has the
    /// bytes on disk too. A session never opened has none.
    ///
    /// - Throws: ``TransferError`` `.invalidState` for an identifier that is not letters, digits,
    ///   `.`, `_` and `-`; `.journal` when the journal cannot be read.
    public static func recordedTransfers(identifier: String, directory: URL) throws(TransferError) -> [TransferSnapshot] {
        try checkIdentifier(identifier)
        let records = try TransferJournal.records(readingOnly: journalPath(identifier: identifier, directory: directory))
        guard !records.isEmpty else { return [] }
        let owned = SessionLock.hasLiveOwner(path: lockPath(identifier: identifier, directory: directory))
        return records.map { record in
            var snapshot = record.snapshot
            switch snapshot.state {
            case .queued, .running:
                let onDisk = PartialFile.length(at: record.partialFile)
                if !owned {
                    (snapshot.state, snapshot.receivedBytes) = (.queued, onDisk)
                } else if onDisk > snapshot.receivedBytes {
                    (snapshot.state, snapshot.receivedBytes) = (.running, onDisk)
                }
            case .paused, .failed: snapshot.receivedBytes = PartialFile.length(at: record.partialFile)
            case .completed, .cancelled: break
            }
            return snapshot
        }
    }
}
