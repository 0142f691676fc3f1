/// Where a transfer is in its life.
public enum TransferState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Waiting for a free slot (overall or per host).
    case queued
    /// Receiving bytes (or between retries).
    case running
    /// Stopped by the user; the partial file is kept.
    case paused
    /// The file is complete and in place.
    case completed
    /// Stopped by an error. Resumable when the reason was not permanent (the partial file is kept).
    case failed
    /// Stopped by the user; the partial file is gone.
    case cancelled

    /// Whether the transfer will not move again by itself.
    public var isFinal: Bool { self == .completed || self == .cancelled }
}
