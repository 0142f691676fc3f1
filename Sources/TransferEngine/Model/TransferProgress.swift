/// How far a transfer has come: the part of a ``TransferSnapshot`` that moves, without its
/// addresses, tag or header fields, so that asking after a batch of 2,000 copies and parses
/// nothing it does not need.
public struct TransferProgress: Sendable, Hashable {
    /// Its state.
    public var state: TransferState
    /// Bytes of the resource received so far (on disk).
    public var receivedBytes: Int64
    /// The resource's full length, when known.
    public var expectedBytes: Int64?
    /// Why it failed, when it did.
    public var failure: TransferError?

    /// A transfer's progress as the caller gives it.
    public init(state: TransferState, receivedBytes: Int64, expectedBytes: Int64?, failure: TransferError?) {
        self.state = state
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.failure = failure
    }
}
