import Foundation

/// Puts a finished file in place for good: the engine's last move of a download, for a file
/// a caller finishes outside a session too (a library file tagged afterwards).
public enum FinishedFile {
    /// Flushes `file` to the device (when `flushing`), renames it to `destination`, replacing
    /// what is there atomically, and flushes the folder, so the new file survives a power cut.
    public static func move(_ file: URL, to destination: URL, flushing: Bool = true) throws(TransferError) {
        try open(file.path, flushing: flushing).finish(at: destination.path)
    }

    /// ``move(_:to:flushing:)``, with the folder flushed by `folders` (shared with other renames).
    static func move(
        _ file: String, to destination: String, flushing: Bool, folders: FolderFlusher
    ) async throws(TransferError) {
        try await open(file, flushing: flushing).finish(at: destination, folders: folders)
    }

    /// The finished file, opened at its end, or an error when it is not there.
    private static func open(_ file: String, flushing: Bool) throws(TransferError) -> PartialFile {
        guard FileManager.default.fileExists(atPath: file) else {
            throw TransferError(.fileSystem, "cannot move \(file) into place: it is not there", permanent: true)
        }
        return try PartialFile(path: file, offset: PartialFile.length(at: file), flushes: flushing)
    }
}
