import HalfTunesKit

#if canImport(Glibc)
    import Glibc
#endif

/// What `import` reads: a file, or standard input for `-`, as UTF-8 text of bounded size (a
/// leading byte order mark dropped).
enum PlaylistInput {
    /// The most bytes read: a playlist of a million tracks takes a few tens of MB.
    static let maximumBytes = 64 << 20

    /// The text of `file`.
    ///
    /// - Throws: A `badInput` ``DownloadError`` in one line naming the file: the system's reason
    ///   when it cannot be read (missing, a folder, not permitted), or that it is too large or
    ///   not UTF-8 text.
    static func read(_ file: String) throws(DownloadError) -> String {
        let name = file == "-" ? "standard input" : file
        let descriptor = file == "-" ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(name, errno) }
        defer { if file != "-" { close(descriptor) } }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure(name, errno) }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
            guard bytes.count <= maximumBytes else {
                throw DownloadError(.badInput, "cannot read \(name): over \(maximumBytes >> 20) MiB, too large for a playlist")
            }
        }
        // A byte order mark, as some editors write at the start, is not part of the first line.
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        guard let text = String(validating: text, as: UTF8.self) else {
            throw DownloadError(.badInput, "cannot read \(name): not UTF-8 text (an M3U8 playlist, or track ids one a line)")
        }
        return text
    }

    /// The system's reason for `code`, in lower case, after the file's name.
    private static func failure(_ name: String, _ code: Int32) -> DownloadError {
        let reason = String(cString: strerror(code))
        return DownloadError(.badInput, "cannot read \(name): \(reason.prefix(1).lowercased() + reason.dropFirst())")
    }
}
