import Foundation

/// The session's transfers by id, with the indexes its hot paths need, so that starting,
/// scheduling and finishing a transfer cost the same with 2,000 transfers as with 2: the queued
/// ones in queue order (with their hosts, parsed once) and the destinations under way.
///
/// Every write goes through the subscript, which keeps the indexes in step. Pure.
struct TransferTable: Sendable {
    private(set) var byID: [TransferID: TransferRecord] = [:]
    /// Queued transfers, ordered by `seq`, from `head` on: the entries before it have started.
    /// (The oldest is the one that starts next; dropping it from an array of 2,000 would move
    /// all the others, at every start.)
    private var queue: [(seq: Int64, id: TransferID, host: String)] = []
    private var head = 0
    /// Destination path → the transfer under way (not final) that writes it.
    private var destinations: [String: TransferID] = [:]
    /// The highest queue position given so far.
    private(set) var lastSequence: Int64 = 0

    subscript(id: TransferID) -> TransferRecord? {
        get { byID[id] }
        set {
            // One lookup by id, not two.
            let old = newValue.map { byID.updateValue($0, forKey: id) } ?? byID.removeValue(forKey: id)
            reindex(id, from: old.map(Placement.init), to: newValue.map(Placement.init))
        }
    }

    /// Takes a transfer out of the table (its record moved out, not copied).
    @discardableResult
    mutating func remove(_ id: TransferID) -> TransferRecord? {
        let old = byID.removeValue(forKey: id)
        reindex(id, from: old.map(Placement.init), to: nil)
        return old
    }

    /// Whether the table has the transfer (no copy of its record made to tell).
    func contains(_ id: TransferID) -> Bool { byID.index(forKey: id) != nil }

    /// What `body` reads off a transfer's record, read where it is; `nil` when the table has no
    /// such transfer. (Mutating only to reach the record in place: the dictionary's getter copies it.)
    mutating func read<R>(_ id: TransferID, _ body: (borrowing TransferRecord) -> R) -> R? {
        guard let index = byID.index(forKey: id) else { return nil }
        return Self.borrow(&byID.values[index], body)
    }

    private static func borrow<R>(_ record: inout TransferRecord, _ body: (borrowing TransferRecord) -> R) -> R {
        body(record)
    }

    /// Changes a transfer's record where it is, keeping the indexes in step, and returns what
    /// `body` returns; `nil` when the table has no such transfer. `body` must not change the
    /// record's id.
    /// Unlike the subscript, it changes the record in place, without copying it out and back.
    @discardableResult
    mutating func update<R, E: Error>(_ id: TransferID, _ body: (inout TransferRecord) throws(E) -> R) throws(E) -> R? {
        guard let index = byID.index(forKey: id) else { return nil }
        var moved: (from: Placement, to: Placement)?
        defer { if let moved { reindex(id, from: moved.from, to: moved.to) } }
        return try Self.change(&byID.values[index], moved: &moved, body)
    }

    /// Runs `body` on `record`, and says where it moved if it did.
    private static func change<R, E: Error>(
        _ record: inout TransferRecord, moved: inout (from: Placement, to: Placement)?,
        _ body: (inout TransferRecord) throws(E) -> R
    ) throws(E) -> R {
        let from = Placement(record)
        defer {
            let to = Placement(record)
            if to != from { moved = (from, to) }
        }
        return try body(&record)
    }

    /// Every transfer, in no particular order.
    var values: Dictionary<TransferID, TransferRecord>.Values { byID.values }

    /// The queued transfers and their hosts, oldest first, read lazily.
    var queued: LazyMapSequence<ArraySlice<(seq: Int64, id: TransferID, host: String)>, (id: TransferID, host: String)> {
        queue[head...].lazy.map { ($0.id, $0.host) }
    }

    /// Makes room for `count` more transfers at once, so a batch of 2,000 does not grow the
    /// tables step by step (each step holds the old storage and the new).
    mutating func reserveCapacity(adding count: Int) {
        byID.reserveCapacity(byID.count + count)
        destinations.reserveCapacity(destinations.count + count)
        queue.reserveCapacity(queue.count + count)
    }

    /// The transfer under way (queued, running, paused or failed) that writes `path`, if any.
    func transfer(writing path: String) -> TransferID? { destinations[path] }

    /// A queue position after every transfer's.
    mutating func nextSequence() -> Int64 {
        lastSequence += 1
        return lastSequence
    }

    /// What the indexes know of a record: its state, destination and queue position (and its
    /// URL, whose host a queued transfer is listed with).
    private struct Placement: Equatable {
        var state: TransferState
        var destination: String
        var seq: Int64
        var url: String

        init(_ record: TransferRecord) {
            (state, destination, seq, url) = (record.transferState, record.destination, record.seq, record.url)
        }
    }

    /// Moves a transfer's entries in the indexes from where `old` put them to where `new` does.
    /// A transfer that stays under way at the same destination keeps its entry there (each of a
    /// file's state changes rehashed its path twice): a destination has one transfer under way
    /// at most (`Session` refuses a second), so the entry is this transfer's.
    private mutating func reindex(_ id: TransferID, from old: Placement?, to new: Placement?) {
        let keepsDestination =
            old?.state.isFinal == false && new?.state.isFinal == false && old?.destination == new?.destination
        if let old { unindex(id, old, destination: !keepsDestination) }
        if let new { index(id, new, destination: !keepsDestination) }
    }

    private mutating func index(_ id: TransferID, _ placement: Placement, destination: Bool) {
        lastSequence = max(lastSequence, placement.seq)
        if destination, !placement.state.isFinal { destinations[placement.destination] = id }
        if placement.state == .queued {
            let entry = (seq: placement.seq, id: id, host: TransferRecord.hostKey(of: placement.url))
            queue.insert(entry, at: position(of: placement.seq))
        }
    }

    private mutating func unindex(_ id: TransferID, _ placement: Placement, destination: Bool) {
        if destination, !placement.state.isFinal, destinations[placement.destination] == id {
            destinations[placement.destination] = nil
        }
        if placement.state == .queued {
            var at = position(of: placement.seq)
            while at < queue.count, queue[at].seq == placement.seq {
                if queue[at].id == id {
                    remove(at: at)
                    return
                }
                at += 1
            }
        }
    }

    private mutating func remove(at index: Int) {
        guard index == head else {
            queue.remove(at: index)
            return
        }
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }

    /// The first place in `queue`, from `head` on, whose `seq` is not below `seq`.
    private func position(of seq: Int64) -> Int {
        var low = head
        var high = queue.count
        while low < high {
            let middle = (low + high) / 2
            if queue[middle].seq < seq { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
