import ITunesSearch
import Synchronization

/// Tracks seen in search results, so a download by id needs no second catalog call.
final class TrackDirectory: Sendable {
    private let tracks = Mutex<[Int: Track]>([:])
    private let capacity = 5000

    func remember(_ found: [Track]) {
        tracks.withLock { tracks in
            if tracks.count + found.count > capacity { tracks.removeAll(keepingCapacity: true) }
            tracks.reserveCapacity(tracks.count + found.count)
            for track in found { tracks[track.id] = track }
        }
    }

    func track(_ id: Int) -> Track? { tracks.withLock { $0[id] } }
}
