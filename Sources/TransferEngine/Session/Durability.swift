/// What a transfer's bytes survive, and so what the engine pays for at the device.
///
/// Both kinds survive a crash of the process (`kill -9`): the kernel keeps every byte it was
/// given, and the journal resumes from them. They differ when the machine itself goes down.
public enum Durability: String, Sendable, Hashable, Codable {
    /// The default. Partial files are flushed at every checkpoint and a finished file before it
    /// is renamed into place (and its folder after). After a power cut a transfer resumes from
    /// its last checkpoint and a completed file is whole.
    case powerLoss
    /// Nothing is flushed, as curl and aria2 do: the fastest, but after a power cut recent bytes
    /// (and recently finished files) may be missing; a transfer then starts over.
    case processCrash

    /// Whether files are flushed to the device.
    public var flushes: Bool { self == .powerLoss }
}
