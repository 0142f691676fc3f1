import Foundation

/// A download whose bytes are all on disk and checked, before it is renamed into place: what a
/// ``TransferFinisher`` gets.
public struct CompletedDownload: Sendable {
    /// The transfer.
    public let transferID: TransferID
    /// The caller's tag of the transfer.
    public let tag: String?
    /// The path of ``file``.
    public let filePath: String
    /// The path of ``replacement``.
    public let replacementPath: String
    /// The path of ``destination``.
    public let destinationPath: String

    /// The complete file, exactly as downloaded. Read it; never change it: until the finished
    /// file is in place, it is what a resume after a crash starts from.
    public var file: URL { URL(filePath: filePath, directoryHint: .notDirectory) }
    /// Where a finisher writes the finished version of the file, if it makes one (in the
    /// destination's folder, so the rename into place is atomic).
    public var replacement: URL { URL(filePath: replacementPath, directoryHint: .notDirectory) }
    /// Where the file goes.
    public var destination: URL { URL(filePath: destinationPath, directoryHint: .notDirectory) }
}

/// The last step of a download, after its bytes are complete and checked and before the file is
/// renamed into place (writing tags into a music file, say). It answers `true` when it wrote a
/// finished version to ``CompletedDownload/replacement``, which then goes into place (flushed
/// first, when the session's durability asks for it); `false` keeps the file as downloaded.
///
/// A finisher must not fail a download: whatever goes wrong, it answers `false`, and leaves
/// nothing at the replacement's path (the session looks there only for what a crash left). After
/// a crash in the middle, the session downloads nothing again: it finds the complete file and
/// finishes it.
public typealias TransferFinisher = @Sendable (CompletedDownload) async -> Bool
