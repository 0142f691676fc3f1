import NIOCore
import Testing

@testable import TransferEngine

/// A connection's read size: NIO's adaptive size up to 256 KiB, raised to 1 MiB only while a
/// large body streams faster than it is read (pure logic: the reads a socket would give are fed in).
@Suite("How large a connection's reads are")
struct StreamReadSizeTests {
    /// A connection's reads, as a socket with `queued` bytes waiting gives them: each read takes
    /// what is waiting, up to the size offered.
    struct Connection {
        var size = StreamReadSize()
        /// The largest read size offered so far.
        var largestOffered = 0

        /// Reads `queued` bytes that all wait in the socket (a body arriving faster than it is read).
        mutating func read(queued: Int) {
            var left = queued
            while left > 0 {
                let offered = size.nextBufferSize() ?? 0
                largestOffered = max(largestOffered, offered)
                let taken = min(left, offered)
                _ = size.record(actualReadBytes: taken)
                left -= taken
            }
        }

        /// Reads a body that arrives in pieces of `piece` bytes, each read as it comes.
        mutating func read(_ total: Int, inPiecesOf piece: Int) {
            var left = total
            while left > 0 {
                read(queued: min(piece, left))
                left -= piece
            }
        }
    }

    @Test("a connection starts as NIO's adaptive size, up to 256 KiB")
    func starts() {
        let size = StreamReadSize()
        #expect(size.nextBufferSize() == 2048)
        #expect(size.maximumBytes == 256 << 10)
        #expect(!size.isStreaming)
    }

    @Test("a batch of 1 MiB previews on one connection never reads more than 256 KiB at once")
    func previewsStayAtTheUsualLimit() {
        var connection = Connection()
        for _ in 0..<200 {
            // Each answer: its head and body together, then nothing until the next request.
            connection.read(queued: 250 + (1 << 20))
        }
        #expect(connection.largestOffered == 256 << 10)
        #expect(!connection.size.isStreaming)
    }

    @Test("31 full reads of 256 KiB and a short one do not raise the limit; 32 in a row do")
    func sustainedReadsRaise() {
        var connection = Connection()
        connection.read(queued: 512 << 10)  // grown to 256 KiB on the way
        var size = connection.size
        #expect(size.nextBufferSize() == 256 << 10)
        for _ in 0..<31 { _ = size.record(actualReadBytes: 256 << 10) }
        _ = size.record(actualReadBytes: 100 << 10)
        #expect(!size.isStreaming)
        for _ in 0..<StreamReadSize.sustainedReads {
            #expect(!size.isStreaming)
            _ = size.record(actualReadBytes: size.nextBufferSize() ?? 0)
        }
        #expect(size.isStreaming)
        #expect(size.maximumBytes == 1 << 20)
    }

    @Test("a large body arriving faster than it is read is read 1 MiB at a time")
    func largeBodyStreams() {
        var connection = Connection()
        connection.read(queued: 64 << 20)
        #expect(connection.size.isStreaming)
        #expect(connection.largestOffered == 1 << 20)
        #expect(connection.size.nextBufferSize() == 1 << 20)
    }

    @Test("a large body arriving in small pieces (a slow network) keeps small reads")
    func slowBodyStaysSmall() {
        var connection = Connection()
        connection.read(64 << 20, inPiecesOf: 16 << 10)
        #expect(!connection.size.isStreaming)
        #expect(connection.largestOffered <= 32 << 10)
    }

    @Test("once the large body is over, small answers bring the limit back to 256 KiB")
    func limitComesBack() {
        var connection = Connection()
        connection.read(queued: 64 << 20)
        #expect(connection.size.isStreaming)
        for _ in 0..<8 { connection.read(queued: 2 << 10) }
        #expect(!connection.size.isStreaming)
        #expect(connection.size.maximumBytes == 256 << 10)
        #expect((connection.size.nextBufferSize() ?? .max) < 256 << 10)
        // And previews after it are read as before.
        connection.largestOffered = 0
        for _ in 0..<50 { connection.read(queued: 250 + (1 << 20)) }
        #expect(connection.largestOffered == 256 << 10)
        #expect(!connection.size.isStreaming)
    }
}
