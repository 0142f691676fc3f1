/// An ID3v2.4 tag: UTF-8 text frames and the cover as an attached picture.
enum ID3Tag {
    static func make(_ tags: TrackTags) -> [UInt8] {
        var frames: [UInt8] = []
        let texts: [(String, String?)] = [
            ("TIT2", tags.title), ("TPE1", tags.artist), ("TALB", tags.album), ("TCON", tags.genre), ("TDRC", tags.date),
            ("TRCK", tags.trackNumber.map { number in number.count.map { "\(number.number)/\($0)" } ?? "\(number.number)" }),
        ]
        for case (let id, let value?) in texts { frames += frame(id, [3] + Array(value.utf8)) }  // 3: UTF-8
        if let cover = tags.cover {
            // Encoding (ISO-8859-1 for the empty description), MIME type, picture type 3 (front cover).
            let body = [0] + Array(cover.kind.mediaType.utf8) + [0, 3, 0] + cover.bytes
            frames += frame("APIC", body)
        }
        return [0x49, 0x44, 0x33, 4, 0, 0] + syncsafe(frames.count) + frames  // "ID3", v2.4.0, no flags
    }

    private static func frame(_ id: String, _ body: [UInt8]) -> [UInt8] {
        [UInt8].fourCC(id) + syncsafe(body.count) + [0, 0] + body
    }

    /// A size in four bytes of seven bits each.
    private static func syncsafe(_ value: Int) -> [UInt8] {
        [21, 14, 7, 0].map { UInt8((value >> $0) & 0x7F) }
    }
}
