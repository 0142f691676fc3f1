import Foundation

/// Reads a file that a download is still writing: the bytes on disk at once, then the rest as
/// they arrive, so a player can start before the download ends.
///
/// It reads through its own descriptor, so it reads on when the download completes (its file is
/// renamed into the library, or replaced by a tagged version) and it stops when the download
/// does: cancelled, started over (the file shrank), or no byte for ``idleLimit``.
public struct GrowingFileReader: Sendable {
    /// How long the reader waits for a byte before it gives up (a download paused that long).
    public static let idleLimit: Duration = .seconds(30)
    /// How often it looks for new bytes while it waits.
    static let pollInterval: Duration = .milliseconds(50)

    /// The file.
    public let file: URL
    /// The first byte to read.
    public let start: Int64
    /// Where to stop (exclusive); `nil` to read until the download ends.
    public let end: Int64?
    /// Whether the download is still on its way (asked while the reader waits for bytes).
    public let isUnderway: @Sendable () async -> Bool
    /// The file, when opened before the reader was made (else each read opens it).
    private let opened: OpenedFile?

    /// A reader of `file` from `start` to `end`; each read opens the file.
    public init(file: URL, start: Int64 = 0, end: Int64? = nil, isUnderway: @escaping @Sendable () async -> Bool) {
        (self.file, self.start, self.end, self.isUnderway, self.opened) = (file, start, end, isUnderway, nil)
    }

    /// A reader of a file opened already (see ``PlaySource``), from `start` to `end`.
    public init(opened: OpenedFile, start: Int64 = 0, end: Int64? = nil, isUnderway: @escaping @Sendable () async -> Bool) {
        let file = URL(fileURLWithPath: opened.path)
        (self.file, self.start, self.end, self.isUnderway, self.opened) = (file, start, end, isUnderway, opened)
    }

    /// Hands each chunk read to `deliver`, in order.
    ///
    /// - Returns: `true` when the reader got to `end` (or, with no `end`, to the end of a download
    ///   that stopped), `false` when the download stopped before `end`.
    /// - Throws: ``DownloadError`` when the file cannot be opened; whatever `deliver` throws.
    public func read(chunkSize: Int = 64 << 10, _ deliver: ([UInt8]) async throws -> Void) async throws -> Bool {
        let source = try opened ?? OpenedFile(path: file.path)
        let descriptor = source.descriptor
        defer { withExtendedLifetime(source) {} }
        var offset = start
        var idleSince = ContinuousClock.now
        var longest: Int64 = 0
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while end.map({ offset < $0 }) ?? true {
            let wanted = Int(min(Int64(chunkSize), (end ?? .max) - offset))
            let count = chunk.withUnsafeMutableBytes { max(pread(descriptor, $0.baseAddress, wanted, off_t(offset)), 0) }
            if count > 0 {
                try await deliver(Array(chunk[0..<count]))
                offset += Int64(count)
                idleSince = .now
                continue
            }
            // At the end of what is on disk: wait for more while the download goes on.
            var info = stat()
            let length = fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
            if length > offset { continue }
            let startedOver = length < longest  // what was read is no longer the download's start
            longest = max(longest, length)
            guard !startedOver, await isUnderway(), ContinuousClock.now - idleSince < Self.idleLimit else {
                return end == nil && !startedOver
            }
            try await Task.sleep(for: Self.pollInterval)
        }
        return true
    }
}
