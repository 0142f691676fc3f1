import Foundation

extension TransferSession {
    /// Loads the journal and reconciles each unfinished transfer with its partial file, then
    /// queues it again. Runs once, when the session opens.
    ///
    /// After a process crash (kill -9) the kernel still has every byte written, so the partial
    /// file's length is the truth. After a machine crash (a new boot id) only the bytes flushed
    /// at the last checkpoint are trusted; the rest is cut off and fetched again.
    func recover() throws(TransferError) {
        let bootID = Self.currentBootID()
        let rebooted = try journal.meta("bootID").map { $0 != bootID } ?? false
        try journal.setMeta("bootID", bootID)
        var resumed = 0
        for var record in try journal.all() {
            let onDisk = PartialFile.length(at: record.partialFile)
            switch record.transferState {
            case .running, .queued:
                let finished = PartialFile.length(at: record.destination)
                if onDisk == 0, let expected = record.expectedBytes, expected > 0,
                    finished == expected || (configuration.finisher != nil && finished > 0),
                    !FileManager.default.fileExists(atPath: record.partialFile)
                {
                    // It was renamed into place just before the crash (finished, when a finisher
                    // changes files); only the journal lagged.
                    record.state = TransferState.completed.rawValue
                    record.receivedBytes = expected
                } else {
                    var kept = onDisk
                    if rebooted, onDisk > record.durableBytes {
                        _ = truncate(record.partialFile, off_t(record.durableBytes))
                        kept = record.durableBytes
                    }
                    record.receivedBytes = kept
                    record.state = TransferState.queued.rawValue
                    resumed += 1
                }
                try journal.save(record)
            case .paused, .failed:
                record.receivedBytes = onDisk
            case .completed, .cancelled:
                break
            }
            records[record.transferID] = record
        }
        if resumed > 0 {
            logger.info("resuming unfinished transfers", metadata: ["count": "\(resumed)", "rebooted": "\(rebooted)"])
        }
        schedule()
    }

    /// This boot's identity (Linux); a constant elsewhere, where a reboot is then never assumed.
    static func currentBootID() -> String {
        let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
        return text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
    }
}
