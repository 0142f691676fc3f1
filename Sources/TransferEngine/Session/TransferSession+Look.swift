import Foundation

extension TransferSession {
    /// Every transfer recorded by the session `identifier` in `directory`, in queue order, read
    /// without opening the session: no lock taken, nothing written, nothing resumed. For a look
    /// at a session that another process owns, which ``open(identifier:directory:configuration:clock:logger:)``
    /// refuses with `.sessionLocked` (a listing beside a foreground `halftunes download`).
    ///
    /// Each transfer is as its owner last committed it, with the bytes its partial file holds now;
    /// while a live process owns the session, one journaled queued or running whose file holds
    /// more is running. With no live owner nothing runs: such a transfer is queued, as opening the
    /// session would make it. A session never opened has none.
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

    /// Whether a process holds the session now (a live owner's lock).
    public static func hasLiveOwner(identifier: String, directory: URL) -> Bool {
        SessionLock.hasLiveOwner(path: lockPath(identifier: identifier, directory: directory))
    }
}
