/// The transfer life cycle as a pure function: which actions apply in which states.
///
/// ```
/// queued ──schedule──▶ running ──complete──▶ completed
///   ▲  │                  │ │ └──fail──▶ failed ──resume──▶ queued
///   │  └─pause─▶ paused ◀─┘ └──interrupt (shutdown)──▶ queued
///   └──resume─────┘        cancel from any unfinished state ──▶ cancelled
/// ```
public enum TransferAction: String, Sendable, Hashable {
    /// A slot is free: start receiving.
    case schedule
    /// The user pauses.
    case pause
    /// The user resumes (or retries a failed transfer).
    case resume
    /// The user cancels.
    case cancel
    /// The file is complete and in place.
    case complete
    /// It failed for good (or until the user resumes).
    case fail
    /// The session is shutting down; it goes on at the next start.
    case interrupt
}

/// The state machine itself.
public enum TransferStateMachine {
    /// The state after `action`, or `nil` when `action` does not apply in `state`.
    public static func next(_ state: TransferState, on action: TransferAction) -> TransferState? {
        switch (state, action) {
        case (.queued, .schedule): .running
        case (.queued, .pause), (.running, .pause): .paused
        case (.paused, .resume), (.failed, .resume): .queued
        case (.queued, .cancel), (.running, .cancel), (.paused, .cancel), (.failed, .cancel): .cancelled
        case (.running, .complete): .completed
        case (.running, .fail), (.queued, .fail): .failed
        case (.running, .interrupt), (.queued, .interrupt): .queued
        default: nil
        }
    }
}
