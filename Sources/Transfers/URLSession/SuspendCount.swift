import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A task's state with its nested suspensions, as corelibs counts them: a task starts suspended
/// once, and runs when every `suspend()` has had its `resume()`.
protocol CountsSuspensions {
    var state: URLSessionTask.State { get set }
    var suspendCount: Int { get set }
}

extension CountsSuspensions {
    /// One `resume()`: whether it is the one that makes the task run.
    mutating func countResume() -> Bool {
        guard state == .suspended, suspendCount > 0 else { return false }
        suspendCount -= 1
        guard suspendCount == 0 else { return false }
        state = .running
        return true
    }

    /// One `suspend()`: whether it is the one that stops a running task.
    mutating func countSuspend() -> Bool {
        guard state == .running || state == .suspended else { return false }
        suspendCount += 1
        guard state == .running else { return false }
        state = .suspended
        return true
    }
}
