import Foundation
import HalfTunesKit

/// The files of `ids` as their downloads complete, read from `events` until all have completed or
/// one download failed.
func waitForCompletion(_ events: AsyncStream<DownloadEvent>, of ids: Set<Int>) async -> [Int: URL] {
    var files: [Int: URL] = [:]
    for await event in events {
        if case .completed(let id, let file, _) = event { files[id] = file }
        if case .failed = event { break }
        if Set(files.keys) == ids { break }
    }
    return files
}
