import Foundation

extension TransferSession {
    /// Every transfer recorded by the session `identifier` in `directory`, in queue order, read
    /// without opening the session: no lock taken, nothing written, nothing resumed. For a look
    /// at a session that another process owns, which ``open(identifier:directory:configuration:clock:logger:)``
    /// refuses with `.sessionLocked` (a listing beside a foreground `halftunes download`).
    ///
    /// Each transfer is as its owner last committed it to the journal, except where its partial
    /// file says more: the owner journals neither a start nor the bytes received between
    /// checkpoints, so a transfer journaled as queued or running whose partial file holds more
    /// bytes than journaled is running, with the bytes its file holds now. (One started that has
    /// nothing on disk yet still reads as queued.) A session never opened has none.
    ///
    /// - Throws: ``TransferError`` `.invalidState` for an identifier that is not letters, digits,
    ///   `.`, `_` and `-`; `.journal` when the journal cannot be read.
    public static func recordedTransfers(identifier: String, directory: URL) throws(TransferError) -> [TransferSnapshot] {
        try checkIdentifier(identifier)
        return try TransferJournal.records(readingOnly: journalPath(identifier: identifier, directory: directory)).map {
            record in
            var snapshot = record.snapshot
            guard [.queued, .running].contains(snapshot.state) else { return snapshot }
            let onDisk = PartialFile.length(at: record.partialFile)
            if onDisk > snapshot.receivedBytes { (snapshot.state, snapshot.receivedBytes) = (.running, onDisk) }
            return snapshot
        }
    }
}
