import HalfTunesKit
import ITunesSearch

/// The track ids of one `download`, handed to the downloads a slice at a time, so that at most
/// ``limit`` of them are looked up and queued at once, whatever the batch's size (aria2's
/// `--deferred-input`, curl's `--parallel` adding transfers as others end).
///
/// So a command's memory does not grow with its batch. A slice is one catalog call's worth of ids
/// (``ITunesCatalog/idsPerLookup``), or two thirds of the limit when that is less, and the next
/// goes in as soon as it fits under the limit, so the downloads queued meanwhile last while the
/// next slice is looked up. Pure.
public struct BatchFeed: Sendable {
    /// The limit when none is given: a slice and half of one.
    public static let defaultLimit = 3 * ITunesCatalog.idsPerLookup / 2

    /// The ids, each once, in the order given.
    public let ids: [Int]
    /// At most this many downloads unfinished at once.
    public let limit: Int
    /// The ids handed over at a time.
    public let sliceSize: Int
    /// The first id not handed over yet.
    private var next = 0

    /// - Parameter limit: At least 1.
    public init(_ ids: [Int], limit: Int = Self.defaultLimit) {
        var seen = Set<Int>()
        self.ids = ids.filter { seen.insert($0).inserted }
        self.limit = max(1, limit)
        self.sliceSize = min(ITunesCatalog.idsPerLookup, max(1, 2 * self.limit / 3))
    }

    /// How many ids have not been handed over yet.
    public var remaining: Int { ids.count - next }

    /// The slice that goes in next once there is room for it (what ``nextSlice(unfinished:)``
    /// hands over then); empty when every id has been handed over.
    public var upcoming: ArraySlice<Int> { ids[next..<min(ids.count, next + sliceSize)] }

    /// Whether every id has been handed over.
    public var isExhausted: Bool { remaining == 0 }

    /// The next slice of ids to start, when it fits beside the `unfinished` downloads under the
    /// limit; `nil` otherwise.
    public mutating func nextSlice(unfinished: Int) -> ArraySlice<Int>? {
        guard !isExhausted, unfinished + sliceSize <= limit else { return nil }
        let slice = upcoming
        next = slice.endIndex
        return slice
    }
}
