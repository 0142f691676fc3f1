import Foundation
import HalfTunesKit
import Hummingbird
import NIOCore

/// The body of a download in progress: the bytes on disk now, then the rest as they arrive, so a
/// player starts before the download ends.
///
/// It reads the partial file through its own descriptor, so it reads on when the download
/// completes (the file is renamed into the library, or replaced by its tagged version) and ends
/// cleanly when the download is cancelled, or when no byte has come for ``idleLimit`` (a
/// download paused that long).
struct GrowingFileBody: Sendable {
    /// How long the body waits for a byte before it gives up.
    static let idleLimit: Duration = .seconds(30)
    /// How often it looks for new bytes while it waits.
    static let pollInterval: Duration = .milliseconds(50)
    static let chunkSize = 64 << 10

    let file: URL
    /// The first byte to send, and the end (exclusive), `nil` when the length is unknown.
    let range: (start: Int64, end: Int64?)
    /// Whether the download is still on its way (asked when the body waits).
    let isUnderway: @Sendable () async -> Bool

    /// Writes the bytes (the caller finishes the writer).
    func write(to writer: inout any ResponseBodyWriter) async throws {
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw DownloadError(.notFound, "that download's bytes are gone") }
        defer { close(descriptor) }
        var offset = range.start
        var idleSince = ContinuousClock.now
        var longest: Int64 = 0
        var buffer = ByteBufferAllocator().buffer(capacity: Self.chunkSize)
        while range.end.map({ offset < $0 }) ?? true {
            let wanted = Int(min(Int64(Self.chunkSize), (range.end ?? .max) - offset))
            buffer.clear()
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { raw in
                max(pread(descriptor, raw.baseAddress, wanted, off_t(offset)), 0)
            }
            if count > 0 {
                try await writer.write(buffer)
                offset += Int64(count)
                idleSince = .now
                continue
            }
            // At the end of what is on disk: wait for more while the download goes on.
            var info = stat()
            let length = fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
            if length > offset { continue }
            let startedOver = length < longest  // what was sent is no longer the download's start
            longest = max(longest, length)
            guard !startedOver, await isUnderway(), ContinuousClock.now - idleSince < Self.idleLimit else {
                if range.end == nil { break }  // a body of unknown length ends here
                // One of known length cut short: the connection closes, and the player knows.
                throw DownloadError(.notFound, "the download stopped before its end")
            }
            try await Task.sleep(for: Self.pollInterval)
        }
    }
}

/// What a `Range: bytes=…` header asks of a resource of known length. Several ranges, or a
/// header that is not a byte range, mean the whole resource (as RFC 9110 allows).
enum ByteRange: Equatable {
    case whole
    case partial(ClosedRange<Int64>)
    case unsatisfiable

    static func parse(_ header: String?, length: Int64) -> ByteRange {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let parts = header.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        let first = parts[0].trimmingCharacters(in: .whitespaces)
        let last = parts[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = Int64(last), suffix > 0, length > 0 else { return last.isEmpty ? .whole : .unsatisfiable }
            return .partial(max(length - suffix, 0)...(length - 1))
        }
        guard let start = Int64(first), last.isEmpty || Int64(last) != nil else { return .whole }
        guard start < length else { return .unsatisfiable }
        let end = min(Int64(last) ?? length - 1, length - 1)
        return end >= start ? .partial(start...end) : .whole
    }
}
