/// The containers ``MediaTagger`` can tag.
public enum MediaFormat: String, Sendable, Hashable {
    /// ISO base media (MP4, M4A): tags in `moov/udta/meta/ilst`.
    case mp4
    /// RIFF WAVE: tags in a `LIST/INFO` chunk and an `id3 ` chunk.
    case wav

    /// The container of a file by its first bytes, `nil` when it is neither.
    public static func detect(_ bytes: some Collection<UInt8>) -> MediaFormat? {
        let head = Array(bytes.prefix(12))
        guard head.count == 12 else { return nil }
        if head[0..<4] == [0x52, 0x49, 0x46, 0x46], head[8..<12] == [0x57, 0x41, 0x56, 0x45] { return .wav }  // RIFF…WAVE
        let type = String(decoding: head[4..<8], as: UTF8.self)
        if ["ftyp", "moov", "free", "skip", "mdat", "wide"].contains(type) { return .mp4 }
        return nil
    }
}
