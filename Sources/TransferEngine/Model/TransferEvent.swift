import Foundation

/// Something that happened to a transfer, as ``TransferSession/events()`` reports it.
public enum TransferEvent: Sendable, Hashable {
    /// Bytes arrived. At most about ten per second per transfer, plus one when it stops.
    case progress(TransferID, received: Int64, expected: Int64?)
    /// The transfer moved to a new state.
    case stateChanged(TransferID, TransferState)
    /// The file is complete, checked and in place at `location`.
    case completed(TransferID, location: URL)
    /// The transfer failed; `error` says why (and whether a resume can help).
    case failed(TransferID, error: TransferError)
    /// A response head arrived (before any of its body is written, and for failing answers too).
    case responded(TransferID, TransferResponse)
    /// An attempt failed in a way worth retrying (a 5xx or 429 answer, a reset, a stall): the
    /// transfer tries again after `delay` (the server's `Retry-After` when it gave one, else the
    /// session's backoff). `reason` says what failed. The transfer stays running meanwhile.
    case retrying(TransferID, reason: String, delay: Duration)

    /// The transfer it concerns.
    public var transferID: TransferID {
        switch self {
        case .progress(let id, _, _), .stateChanged(let id, _), .completed(let id, _), .failed(let id, _),
            .responded(let id, _), .retrying(let id, _, _):
            id
        }
    }
}
