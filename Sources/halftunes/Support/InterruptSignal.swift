import UnixSignals

/// Ctrl-C (SIGINT) and SIGTERM, trapped so the command can stop cleanly instead of dying.
enum InterruptSignal {
    /// The signals as they arrive.
    static func trap() async -> UnixSignalsSequence {
        await UnixSignalsSequence(trapping: .sigint, .sigterm)
    }
}
