/// Writes tags into a WAV file: a `LIST/INFO` chunk (what Windows and most players read) and an
/// `id3 ` chunk (what carries the cover), both after the audio; every other chunk is kept as it
/// is, earlier tag chunks are replaced, and the RIFF size is fixed.
enum WAVTagger {
    struct Chunk {
        var id: [UInt8]
        var start: Int
        var dataSize: Int
        /// Past the chunk's data and its pad byte (chunks start on even offsets).
        var end: Int
    }

    static func tag(_ bytes: [UInt8], with tags: TrackTags) throws(MediaTagError) -> [UInt8] {
        guard bytes.count >= 12, MediaFormat.detect(bytes) == .wav else { throw MediaTagError(.unknownFormat, "not a WAV file") }
        let chunks = try chunks(of: bytes)
        guard chunks.contains(where: { $0.id == .fourCC("data") }) else {
            throw MediaTagError(.malformed, "the WAV file has no data chunk")
        }
        var out: [UInt8] = Array(bytes[0..<12])
        out.reserveCapacity(bytes.count + (tags.cover?.bytes.count ?? 0) + 1024)
        for chunk in chunks where !isTagChunk(chunk, in: bytes) {
            out += bytes[chunk.start..<min(chunk.end, bytes.count)]
            if chunk.end > bytes.count { out.append(0) }  // a last odd chunk without its pad byte
        }
        out += chunk("LIST", info(tags))
        out += chunk("id3 ", ID3Tag.make(tags))
        guard out.count - 8 <= Int(UInt32.max) else { throw MediaTagError(.unsupported, "a WAV file over 4 GiB is not tagged") }
        out.replaceSubrange(4..<8, with: littleEndian(UInt32(out.count - 8)))
        return out
    }

    /// The chunks after the `WAVE` form type, each checked against the end of the file.
    static func chunks(of bytes: [UInt8]) throws(MediaTagError) -> [Chunk] {
        var chunks: [Chunk] = []
        var offset = 12
        while offset < bytes.count {
            guard bytes.count - offset >= 8 else {
                // Some writers leave a stray byte or two; nothing a chunk can be made of.
                break
            }
            let size = Int(bytes.uint32LE(at: offset + 4))
            guard size <= bytes.count - offset - 8 else {
                throw MediaTagError(
                    .malformed,
                    "chunk \(fourCCText(bytes[offset..<offset + 4])) at offset \(offset) claims \(size) bytes, past the end")
            }
            let end = offset + 8 + size + (size & 1)
            chunks.append(Chunk(id: Array(bytes[offset..<offset + 4]), start: offset, dataSize: size, end: end))
            guard chunks.count <= 100_000 else { throw MediaTagError(.malformed, "more than 100000 chunks") }
            offset = end
        }
        return chunks
    }

    /// `LIST` chunks of form `INFO` and ID3 chunks: the ones this writer replaces.
    private static func isTagChunk(_ chunk: Chunk, in bytes: [UInt8]) -> Bool {
        if chunk.id == .fourCC("id3 ") || chunk.id == .fourCC("ID3 ") { return true }
        return chunk.id == .fourCC("LIST") && chunk.dataSize >= 4
            && bytes[chunk.start + 8..<chunk.start + 12].elementsEqual([UInt8].fourCC("INFO"))
    }

    /// `INFO` and its sub-chunks, each a zero-terminated UTF-8 string.
    private static func info(_ tags: TrackTags) -> [UInt8] {
        var out = [UInt8].fourCC("INFO")
        let fields: [(String, String?)] = [
            ("INAM", tags.title), ("IART", tags.artist), ("IPRD", tags.album), ("IGNR", tags.genre), ("ICRD", tags.date),
            ("ITRK", tags.trackNumber.map { String($0.number) }),
        ]
        for case (let id, let value?) in fields { out += chunk(id, Array(value.utf8) + [0]) }
        return out
    }

    private static func chunk(_ id: String, _ content: [UInt8]) -> [UInt8] {
        var out = [UInt8].fourCC(id) + littleEndian(UInt32(content.count)) + content
        if content.count & 1 == 1 { out.append(0) }
        return out
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        var out: [UInt8] = []
        out.appendUInt32LE(value)
        return out
    }
}
