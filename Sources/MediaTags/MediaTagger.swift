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
        try tagFile(atPath: source.path, writingToPath: destination.path, tags: tags)
    }

    /// Writes a tagged copy of the file at path `source` to path `destination` (replacing it),
    /// leaving the source as it is. Nothing is written when tagging fails.
    ///
    /// - Returns: The file's container.
    @discardableResult
    public static func tagFile(
        atPath source: String, writingToPath destination: String, tags: TrackTags
    ) throws(MediaTagError) -> MediaFormat {
        let (format, tagged) = try tag(try read(source), with: tags)
        try write(tagged, to: destination)
        return format
    }

    /// A whole file, read straight into an array (no `Data` in between: previews are tagged by the hundred).
    static func read(_ file: String) throws(MediaTagError) -> [UInt8] {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw fileError("read", file) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw fileError("read", file) }
        let size = Int(info.st_size)
        // The first bytes say whether there is anything to tag: a file that is neither container
        // is refused before it is read (a large download must not be read into memory for nothing).
        var head = [UInt8](repeating: 0, count: 12)
        let headCount = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, 12, 0) }
        guard headCount >= 0 else { throw fileError("read", file) }
        guard MediaFormat.detect(head.prefix(headCount)) != nil else {
            throw MediaTagError(.unknownFormat, "neither an MP4/M4A nor a WAV file")
        }
        guard size <= maximumFileSize else {
            throw MediaTagError(.unsupported, "a file over \(maximumFileSize >> 20) MiB is not tagged")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, size - done, off_t(done)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw fileError("read", file) }
            done += count
        }
        return bytes
    }

    /// Writes `bytes` to a new file at `file` (replacing one that is there); nothing stays on failure.
    static func write(_ bytes: [UInt8], to file: String) throws(MediaTagError) {
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw fileError("write", file) }
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + done, bytes.count - done) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let error = fileError("write", file)
                close(descriptor)
                unlink(file)
                throw error
            }
            done += count
        }
        close(descriptor)
    }

    private static func fileError(_ action: String, _ file: String) -> MediaTagError {
        MediaTagError(.fileSystem, "cannot \(action) \(file): \(String(cString: strerror(errno)))")
    }
}
