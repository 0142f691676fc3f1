import NIOCore

/// How large a connection's next socket read is: NIO's adaptive size (it grows while reads fill
/// the buffer and shrinks after two reads of half or less), up to ``ConnectionReads/maximumBytes``
/// — and up to ``streamingBytes`` while the connection streams a large body faster than it is read.
///
/// Reads of 1 MiB instead of 256 KiB take a third or more off the kernel's work on a body of
/// hundreds of MiB (fewer reads, and fewer of the acknowledgements each read sends, which on
/// loopback make the sender's next segments in the reader's time): 512 MiB took 0.47 s, not 0.56,
/// its slowest of ten runs 0.52 s instead of 0.69. But a connection that always read 1 MiB kept a
/// buffer that size for every file, ~5 MiB more at peak on a batch of 1 MiB previews, where the
/// larger reads gained little. So the limit is raised only once ``sustainedReads`` reads in a row
/// have each filled 256 KiB — 8 MiB arriving faster than it is read, which a preview of a few
/// hundred KB or 1 MiB never is (its last read is a short one) — and is lowered again once the
/// reads have shrunk the size back under 256 KiB (the large body is over).
struct StreamReadSize: RecvByteBufferAllocator {
    /// The most one read takes while a large body streams.
    static let streamingBytes = 1 << 20
    /// How many reads in a row must fill ``ConnectionReads/maximumBytes`` to raise the limit.
    static let sustainedReads = 32

    /// NIO's adaptive size, within the limit of the moment.
    private var adaptive = Self.adaptive(from: 2048, upTo: ConnectionReads.maximumBytes)
    /// Reads in a row that filled ``ConnectionReads/maximumBytes`` (while the limit is not raised).
    private var fullReads = 0

    /// Whether the limit is ``streamingBytes`` (a large body streams) rather than
    /// ``ConnectionReads/maximumBytes``.
    var isStreaming: Bool { adaptive.maximum > ConnectionReads.maximumBytes }

    /// The limit of the moment.
    var maximumBytes: Int { adaptive.maximum }

    func buffer(allocator: ByteBufferAllocator) -> ByteBuffer {
        adaptive.buffer(allocator: allocator)
    }

    func nextBufferSize() -> Int? {
        adaptive.nextBufferSize()
    }

    mutating func record(actualReadBytes: Int) -> Bool {
        let size = adaptive.nextBufferSize() ?? 0
        var mayGrow = adaptive.record(actualReadBytes: actualReadBytes)
        if isStreaming {
            // Shrunk back under the usual limit: the large body is over.
            let next = adaptive.nextBufferSize() ?? 0
            if next < ConnectionReads.maximumBytes {
                adaptive = Self.adaptive(from: next, upTo: ConnectionReads.maximumBytes)
            }
            return mayGrow
        }
        let filled = size == ConnectionReads.maximumBytes && actualReadBytes >= size
        fullReads = filled ? fullReads + 1 : 0
        if fullReads >= Self.sustainedReads {
            // From the usual limit on, growing as NIO's does (this full read counts).
            adaptive = Self.adaptive(from: ConnectionReads.maximumBytes, upTo: Self.streamingBytes)
            _ = adaptive.record(actualReadBytes: actualReadBytes)
            fullReads = 0
            mayGrow = true
        }
        return mayGrow
    }

    /// NIO's adaptive size starting at `initial` bytes, within `maximum`.
    private static func adaptive(from initial: Int, upTo maximum: Int) -> AdaptiveRecvByteBufferAllocator {
        AdaptiveRecvByteBufferAllocator(minimum: 64, initial: initial, maximum: maximum)
    }
}
