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
            // One lookup by id, not two; and a transfer that stays under way at the same
            // destination keeps its entry there (each of a file's state changes rehashed its path
            // twice): a destination has one transfer under way at most (`Session` refuses a
            // second), so the entry is this transfer's.
            let old = newValue.map { byID.updateValue($0, forKey: id) } ?? byID.removeValue(forKey: id)
            let oldState = old?.transferState
            let newState = newValue?.transferState
            let keepsDestination =
                oldState?.isFinal == false && newState?.isFinal == false && old?.destination == newValue?.destination
            if let old, let oldState { unindex(old, state: oldState, destination: !keepsDestination) }
            if let newValue, let newState { index(newValue, state: newState, destination: !keepsDestination) }
        }
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

    private mutating func index(_ record: TransferRecord, state: TransferState, destination: Bool) {
        lastSequence = max(lastSequence, record.seq)
        if destination, !state.isFinal { destinations[record.destination] = record.transferID }
        if state == .queued {
            let entry = (seq: record.seq, id: record.transferID, host: record.host)
            queue.insert(entry, at: position(of: record.seq))
        }
    }

    private mutating func unindex(_ record: TransferRecord, state: TransferState, destination: Bool) {
        if destination, !state.isFinal, destinations[record.destination] == record.transferID {
            destinations[record.destination] = nil
        }
        if state == .queued {
            var at = position(of: record.seq)
            while at < queue.count, queue[at].seq == record.seq {
                if queue[at].id == record.transferID {
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
