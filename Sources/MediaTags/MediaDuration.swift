import Foundation

/// How long a file plays, read from its container: a WAV's data size ÷ its byte rate, an MP4's
/// `moov/mvhd` duration ÷ timescale. Pure; `nil` when the file says neither.
public enum MediaDuration {
    /// The seconds `bytes` play, or `nil`.
    public static func seconds(of bytes: [UInt8]) -> Double? {
        switch MediaFormat.detect(bytes) {
        case .wav: return wav(bytes, whole: true)
        case .mp4: return mp4(bytes)
        case nil: return nil
        }
    }

    /// The seconds the file at `path` plays, or `nil`, reading its head and, for an MP4, its
    /// top-level boxes' headers and its `moov` (not the media): cheap for a whole library.
    public static func seconds(ofFileAt path: String) -> Double? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 64 << 10).map(Array.init) else { return nil }
        switch MediaFormat.detect(head) {
        case .wav: return wav(head, whole: false)
        case .mp4:
            var offset: UInt64 = 0
            for _ in 0..<64 {
                guard (try? handle.seek(toOffset: offset)) != nil,
                    let header = try? handle.read(upToCount: 16).map(Array.init), header.count >= 8
                else { return nil }
                var size = UInt64(header.uint32BE(at: 0))
                if size == 1, header.count == 16 { size = header.uint64BE(at: 8) }
                // A size that would carry the next box past what a file can hold ends the walk.
                guard size >= 8, size <= UInt64(Int64.max) - offset else { return nil }
                if header[4..<8].elementsEqual("moov".utf8) {
                    guard size < 64 << 20, (try? handle.seek(toOffset: offset)) != nil,
                        let moov = try? handle.read(upToCount: Int(size)).map(Array.init)
                    else { return nil }
                    return mp4(moov)
                }
                offset += size
            }
            return nil
        case nil: return nil
        }
    }

    /// A WAV's seconds from its `fmt ` and `data` chunks; `whole`: the bytes are the whole file
    /// (a `data` size past their end is cut to it), else its head (the size is taken as declared).
    private static func wav(_ bytes: [UInt8], whole: Bool) -> Double? {
        var offset = 12
        var byteRate: UInt32?
        while offset + 8 <= bytes.count {
            let size = Int(bytes.uint32LE(at: offset + 4))
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            if id == "fmt ", offset + 20 <= bytes.count { byteRate = bytes.uint32LE(at: offset + 16) }
            if id == "data", let byteRate, byteRate > 0 {
                return Double(whole ? min(size, bytes.count - offset - 8) : size) / Double(byteRate)
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }

    private static func mp4(_ bytes: [UInt8]) -> Double? {
        guard let top = try? Box.children(of: bytes, from: 0, to: bytes.count),
            let moov = top.first(where: { $0.is("moov") }),
            let inside = try? Box.children(of: bytes, from: moov.contentStart, to: moov.end),
            let mvhd = inside.first(where: { $0.is("mvhd") })
        else { return nil }
        let at = mvhd.contentStart
        guard at + 32 <= mvhd.end else { return nil }
        let version = bytes[at]
        let (timescale, duration): (UInt32, UInt64) =
            version == 1
            ? (bytes.uint32BE(at: at + 20), bytes.uint64BE(at: at + 24))
            : (bytes.uint32BE(at: at + 12), UInt64(bytes.uint32BE(at: at + 16)))
        return timescale > 0 ? Double(duration) / Double(timescale) : nil
    }
}
