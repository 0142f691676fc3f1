import AsyncHTTPClient
import Foundation
import NIOCore

/// A request body's pieces, as the HTTP client takes them, each counted to `sent`: bytes cut in
/// pieces, or a file read from its start each time the body is iterated (each hop that sends it).
struct BodyPieces: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    static let pieceSize = 1 << 16

    let source: DataRequestBody
    /// The body's size.
    let total: Int64
    /// Told of each piece taken: its bytes, all taken so far, ``total``.
    let sent: @Sendable (Int64, Int64, Int64) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        let pieces: BodyPieces
        var offset = 0
        var handle: FileHandle?

        mutating func next() async throws -> ByteBuffer? {
            let piece: Data
            switch pieces.source {
            case .bytes(let data):
                piece = data[data.startIndex + offset..<data.startIndex + Swift.min(offset + BodyPieces.pieceSize, data.count)]
            case .file(let file):
                if handle == nil { handle = try FileHandle(forReadingFrom: file) }
                piece = try handle?.read(upToCount: BodyPieces.pieceSize) ?? Data()
                if piece.isEmpty { try? handle?.close() }
            }
            guard !piece.isEmpty else { return nil }
            offset += piece.count
            pieces.sent(Int64(piece.count), Int64(offset), pieces.total)
            return ByteBuffer(bytes: piece)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pieces: self) }
}
