import Foundation
import TransferEngine

/// A task's transfer can run, and ask or report, before the engine's `start` has returned to the
/// session (the session is an actor; it takes other calls while it awaits the engine): those
/// questions and events are matched to the task by the transfer's tag, and the events wait until
/// the task has recorded its transfer.
extension SessionCore {
    /// The task whose transfer `id` is: recorded, or one whose start awaits the engine (read from
    /// the transfer's tag); `nil` for a transfer of no task.
    func taskNumber(of id: TransferID) async -> Int? {
        if let number = byTransfer[id] { return number }
        guard !starting.isEmpty, let engine, let tag = TaskTag(await engine.transfer(id)?.tag),
            starting.contains(tag.task)
        else { return byTransfer[id] }
        return tag.task
    }

    /// Whether `event` waits for its task to record its transfer (see ``replayEarlyEvents(of:)``).
    func parksEarly(_ event: TransferEvent) -> Bool {
        guard byTransfer[event.transferID] == nil, !starting.isEmpty else { return false }
        early[event.transferID, default: []].append(event)
        return true
    }

    /// Hands a started task's early events on, in order, once its transfer is recorded; forgets
    /// the early events of transfers no task claimed once no start awaits the engine.
    func replayEarlyEvents(of id: TransferID?) async {
        if let id {
            while let event = early[id]?.first {
                early[id]?.removeFirst()
                await handle(event)
            }
            early[id] = nil
        }
        if starting.isEmpty { early.removeAll() }
    }
}
