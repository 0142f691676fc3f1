import Foundation

/// How a foreground download asks Linux to schedule it: as batch work (`SCHED_BATCH`, what
/// `chrt --batch` sets), at the same priority and share of the CPU as before.
///
/// A batch of downloads is a pipeline of threads handing each file on: the HTTP client's event
/// loops, Swift's task pool, the databases' writers, the file-work threads. Under the default
/// policy a thread woken by another may preempt a running one at once, so on a busy machine each
/// hand-over can cost two switches, the thread that handed over still having work in hand (a
/// 2,000-file batch on 2 cores, with its server beside it: ~7,400 involuntary switches). A batch
/// thread that wakes waits for a free core or the end of the running thread's turn instead
/// (~2,700); nor, waking, does it preempt the programs a person is using. Only downloads shown in
/// the foreground (`download` and `resume`, before ``ForegroundDownloads`` shows them) ask for
/// it; the web server answers a page, and stays as it is.
enum BatchScheduling {
    /// Linux's `SCHED_BATCH` (`sched.h`; Swift's Glibc module leaves it out).
    private static let batchPolicy: Int32 = 3

    /// Marks every thread of this process as batch work; a thread started later takes its
    /// creator's policy, so the whole process stays batch work. Advice only: a system that
    /// refuses leaves the process as it was, and the command runs the same.
    static func adopt() {
        var marked = Set<pid_t>()
        // A thread started while the list is read is marked by the next pass, or inherits the
        // policy from a creator already marked.
        for _ in 0..<4 {
            let threads = Set(threadIDs()).subtracting(marked)
            guard !threads.isEmpty else { break }
            var parameters = sched_param(sched_priority: 0)
            for thread in threads where sched_setscheduler(thread, batchPolicy, &parameters) == 0 {
                marked.insert(thread)
            }
            if marked.isEmpty { break }  // refused (no such policy): nothing to gain from more passes
        }
    }

    /// The ids of this process's threads (`/proc/self/task`).
    private static func threadIDs() -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return names.compactMap { pid_t($0) }
    }
}
