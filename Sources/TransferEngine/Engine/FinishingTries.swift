import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How many times finishing a transfer began and was cut short by the end of the process: a
/// small file beside its partial file (`<partial>.finishing-tries`), written before the finisher
/// runs and removed once it has returned. A file that crashes its finisher (a poison input)
/// would otherwise crash the process owning every download at each restart.
struct FinishingTries {
    /// The tries after which the transfer is set aside (``TransferError/Code/finishingInterrupted``).
    static let limit = 2

    let path: String

    init(partialPath: String) { path = partialPath + ".finishing-tries" }

    /// The tries cut short so far (0: none).
    var count: Int {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return 0 }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? Self.limit
    }

    /// Records that one more try begins.
    func begin() { try? "\(count + 1)\n".write(toFile: path, atomically: false, encoding: .utf8) }

    /// The try ended without the process ending: nothing to count.
    func clear() { unlink(path) }
}

/// Lets finishers run side by side, except a suspect's: a transfer whose finishing a crash
/// already cut short runs its finisher alone, so that the next crash is its own and no other
/// transfer finishing beside it is counted with it.
actor FinishingGate {
    private var shared = 0
    private var exclusive = false
    private var waiters: [(exclusive: Bool, continuation: CheckedContinuation<Void, Never>)] = []

    /// Waits for a turn: alone when `exclusive`, else beside other non-exclusive ones.
    func enter(exclusive wanted: Bool) async {
        if waiters.isEmpty, admits(wanted) { return take(wanted) }
        await withCheckedContinuation { waiters.append((wanted, $0)) }
    }

    /// Ends a turn ``enter(exclusive:)`` gave.
    func leave(exclusive held: Bool) {
        if held { exclusive = false } else { shared -= 1 }
        while let first = waiters.first, admits(first.exclusive) {
            waiters.removeFirst()
            take(first.exclusive)
            first.continuation.resume()
        }
    }

    private func admits(_ wanted: Bool) -> Bool { wanted ? !exclusive && shared == 0 : !exclusive }

    private func take(_ wanted: Bool) { if wanted { exclusive = true } else { shared += 1 } }
}
