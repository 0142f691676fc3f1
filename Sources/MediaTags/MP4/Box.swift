/// One box of an MP4 file: where it starts, how long its header is, where it ends.
struct Box: Hashable {
    /// The box's type, such as `moov`.
    var type: [UInt8]
    /// The offset of its first byte.
    var start: Int
    /// 8, or 16 for a box with a 64-bit size.
    var headerSize: Int
    /// The offset just past its last byte.
    var end: Int

    /// Where the box's content begins.
    var contentStart: Int { start + headerSize }
    /// The box's length in bytes.
    var size: Int { end - start }

    /// Whether the box is of `type`.
    func `is`(_ code: String) -> Bool { type == [UInt8].fourCC(code) }

    /// The boxes in `bytes[from..<to]`, read defensively: every size is checked against the
    /// parent's end, a size of 0 means "to the parent's end", a size of 1 announces a 64-bit size,
    /// and there are at most `limit` boxes.
    static func children(
        of bytes: [UInt8], from: Int, to: Int, limit: Int = 100_000
    ) throws(MediaTagError) -> [Box] {
        var boxes: [Box] = []
        var offset = from
        while offset < to {
            guard to - offset >= 8 else {
                throw MediaTagError(.malformed, "\(to - offset) stray bytes at offset \(offset), too few for a box")
            }
            let type = Array(bytes[offset + 4..<offset + 8])
            let name = fourCCText(bytes[offset + 4..<offset + 8])
            var headerSize = 8
            var size: UInt64 = UInt64(bytes.uint32BE(at: offset))
            if size == 1 {
                guard to - offset >= 16 else { throw MediaTagError(.malformed, "box \(name) at \(offset) is cut short") }
                size = bytes.uint64BE(at: offset + 8)
                headerSize = 16
            } else if size == 0 {
                size = UInt64(to - offset)
            }
            guard size >= UInt64(headerSize) else {
                throw MediaTagError(.malformed, "box \(name) at offset \(offset) claims \(size) bytes, less than its header")
            }
            guard size <= UInt64(to - offset) else {
                throw MediaTagError(
                    .malformed, "box \(name) at offset \(offset) claims \(size) bytes, past the end of its parent at \(to)")
            }
            boxes.append(Box(type: type, start: offset, headerSize: headerSize, end: offset + Int(size)))
            guard boxes.count <= limit else { throw MediaTagError(.malformed, "more than \(limit) boxes in one parent") }
            offset += Int(size)
        }
        return boxes
    }

    /// The box's bytes as they are, except that a size of 0 ("to the end of the parent") is
    /// written out, so that what follows the box in a rebuilt parent stays outside it.
    func bytes(in source: [UInt8]) -> ArraySlice<UInt8> {
        guard headerSize == 8, source.uint32BE(at: start) == 0, size <= Int(UInt32.max) else { return source[start..<end] }
        var copy = source[start..<end]
        copy.replaceSubrange(start..<start + 4, with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: UInt32(size) >> $0) })
        return copy
    }

    /// A box's bytes with `content`, sized to fit (a 64-bit size only when it must).
    static func make(_ type: [UInt8], _ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        if content.count + 8 <= Int(UInt32.max) {
            out.reserveCapacity(content.count + 8)
            out.appendUInt32BE(UInt32(content.count + 8))
            out += type
        } else {
            out.appendUInt32BE(1)
            out += type
            out.append(contentsOf: [UInt8](repeating: 0, count: 8))
            out.setUInt64BE(UInt64(content.count + 16), at: 8)
        }
        out += content
        return out
    }
}
