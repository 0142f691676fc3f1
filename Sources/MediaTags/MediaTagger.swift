import Foundation

/// Writes tags and cover art into music files, in pure Swift: MP4/M4A (`ilst`) and WAV
/// (`LIST/INFO` + `id3 `). It rewrites the container's boxes or chunks and never the audio.
///
/// Parsing is bounded and defensive: a malformed file gives a ``MediaTagError``, never a crash
/// or a hang, and the source is never modified.
public enum MediaTagger {
    /// The largest file tagged (tagging works in memory; previews are about 1 MB).
    public static let maximumFileSize = 512 << 20

    /// `bytes` with `tags` written in.
    public static func tag(_ bytes: [UInt8], with tags: TrackTags) throws(MediaTagError) -> (MediaFormat, [UInt8]) {
        guard bytes.count <= maximumFileSize else {
            throw MediaTagError(.unsupported, "a file over \(maximumFileSize >> 20) MiB is not tagged")
        }
        switch MediaFormat.detect(bytes) {
        case .mp4: return (.mp4, try MP4Tagger.tag(bytes, with: tags))
        case .wav: return (.wav, try WAVTagger.tag(bytes, with: tags))
        case nil: throw MediaTagError(.unknownFormat, "neither an MP4/M4A nor a WAV file")
        }
    }

    /// Writes a tagged copy of the file at `source` to `destination` (replacing it), leaving the
    /// source as it is. Nothing is written when tagging fails.
    ///
    /// - Returns: The file's container.
    @discardableResult
    public static func tagFile(at source: URL, writingTo destination: URL, tags: TrackTags) throws(MediaTagError) -> MediaFormat {
        let bytes: [UInt8]
        do {
            let handle = try FileHandle(forReadingFrom: source)
            defer { try? handle.close() }
            let size = try handle.seekToEnd()
            guard size <= UInt64(maximumFileSize) else {
                throw MediaTagError(.unsupported, "a file over \(maximumFileSize >> 20) MiB is not tagged")
            }
            try handle.seek(toOffset: 0)
            bytes = Array(try handle.readToEnd() ?? Data())
        } catch let error as MediaTagError {
            throw error
        } catch {
            throw MediaTagError(.fileSystem, "cannot read \(source.path): \(error.localizedDescription)")
        }
        let (format, tagged) = try tag(bytes, with: tags)
        do {
            try Data(tagged).write(to: destination)
        } catch {
            throw MediaTagError(.fileSystem, "cannot write \(destination.path): \(error.localizedDescription)")
        }
        return format
    }
}
