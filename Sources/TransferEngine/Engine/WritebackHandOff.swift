import NIOConcurrencyHelpers

/// A partial file's requests to the kernel about its write-back windows, made on a file-work
/// thread instead of the event loop that writes the file: one at a time, in the order handed over.
///
/// Starting a window's write-back and letting go of the written pages behind it is kernel work
/// of its own (building the device's requests, freeing pages): about a fifth of the event loop's
/// time on a 512 MiB download, done while the socket waited. Handed over, it runs beside the
/// reads; 512 MiB took ~10 % less time. The file hands over the next window's requests only once
/// the last ones are done (``settle()``), so a durable file whose device is slower than the
/// network still slows its download instead of filling the page cache.
///
/// A failed wait for write-back (EIO, ENOSPC, EDQUOT) is the file's write-back error, which its
/// flushes will not report again (the kernel reports it once): it is kept here for good, and every
/// ``settle()`` after returns it — the next window's write, a checkpoint's flush, the finish and
/// the close each fail or cut the file on it.
final class WritebackHandOff: @unchecked Sendable {
    /// 1 while requests run, 0 otherwise; guards ``failure``.
    private let state = ConditionLock(value: 0)
    /// The error number of the first failed wait, 0 if none failed.
    private var failure: Int32 = 0

    /// Runs `requests` on a file-work thread; they return 0, or the error number of a failed wait.
    /// Call only after ``settle()``: one hand-over at a time.
    func start(_ requests: @escaping @Sendable () -> Int32) {
        state.lock()
        state.unlock(withValue: 1)
        FileWork.submit { [self] in
            let code = requests()
            state.lock()
            if code != 0, failure == 0 { failure = code }
            state.unlock(withValue: 0)
        }
    }

    /// Waits until the requests handed over are done; returns the error number of a wait that
    /// failed, if one ever did.
    func settle() -> Int32? {
        state.lock(whenValue: 0)
        defer { state.unlock() }
        return failure == 0 ? nil : failure
    }

    /// Waits as ``settle()`` does, and throws the write-back error of the file at `path`, if a
    /// wait met one.
    func settle(path: String) throws(TransferError) {
        if let code = settle() { throw PartialFile.writebackError(path, code: code) }
    }
}
