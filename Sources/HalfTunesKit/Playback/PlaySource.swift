import Foundation

/// A file opened for reading, closed when the last reader lets it go.
///
/// Opened before a player is answered, so what it is answered with is sure to be readable: a
/// file renamed or replaced afterwards (a download's partial file moved into the library, a
/// library file retagged) is still the one read, to its end.
public final class OpenedFile: Sendable {
    /// The path the file had when it was opened.
    public let path: String
    let descriptor: Int32

    /// Opens the file at `path` for reading.
    ///
    /// - Throws: ``DownloadError`` with code `.notFound` when there is no such file (or it cannot
    ///   be read).
    public init(path: String) throws(DownloadError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw DownloadError(.notFound, "the download's bytes are gone") }
        (self.path, self.descriptor) = (path, descriptor)
    }

    deinit { close(descriptor) }
}

/// What a player reads for a track: the look at it (``DownloadControl/playTarget(_:)``) and, for a
/// download under way, its partial file, opened.
public enum PlaySource {
    /// Looks at a track with `look` and opens its partial file when it is still downloading.
    ///
    /// A download's partial file goes the moment the download completes (renamed into the library)
    /// or is cancelled; a look that named it just before is taken again, once, so a player asking
    /// at that moment is answered from the finished file instead of with an error. A library
    /// file is not opened here: its reader opens it (a missing one is the reader's error).
    ///
    /// - Parameters:
    ///   - isolation: Where `look` runs: the caller's actor.
    ///   - look: The look at the track (its play target).
    /// - Returns: The target the answer is built from, and its partial file opened (`nil` for a
    ///   track in the library).
    /// - Throws: What `look` throws; ``DownloadError`` with code `.notFound` when the partial file
    ///   is gone on the second look too.
    public static func open(
        isolation: isolated (any Actor)? = #isolation, _ look: () async throws(DownloadError) -> DownloadDocument
    ) async throws(DownloadError) -> (target: DownloadDocument, partial: OpenedFile?) {
        let target = try await look()
        guard target.state != .downloaded else { return (target, nil) }
        if let partial = try? OpenedFile(path: target.file ?? "") { return (target, partial) }
        let again = try await look()
        guard again.state != .downloaded else { return (again, nil) }
        return (again, try OpenedFile(path: again.file ?? ""))
    }
}
