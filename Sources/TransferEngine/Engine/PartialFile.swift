import CFileWriteback
import Foundation
import NIOCore

/// The `.part` file a download streams into: opened at an offset, written buffer by buffer,
/// flushed, and renamed into place when complete.
///
/// Write-back starts early: every ``writebackWindow`` bytes the kernel is asked to start writing
/// the window just filled (without waiting), so the flushes a durable download must make find
/// little left to do, instead of the whole file piled up in the page cache. The same request lets
/// go of the pages of the ``trailingWindows`` before it that write-back is done with, and a durable
/// file's flush at the end lets go of all of them: a file of hundreds of MiB streams through a few
/// windows of memory that the kernel reuses, and a batch of previews through the pages of the
/// files before, instead of taking fresh pages for every window and every file (on a virtual
/// machine the first touch of a page can cost more than the disk's write of it). A durable file
/// waits, before that request, for the oldest of those windows to be written (it was handed over a
/// window ago), so its pages are always dropped: a slow device slows the download instead of the
/// page cache growing. These requests are made on a file-work thread, not on the event loop that
/// writes the file (``WritebackHandOff``): one window's at a time, a wait for the last ones before
/// the next. A file that is not flushed (`process-crash`) does not wait while fresh pages are
/// cheap: it lets go of what happens to be written (the kernel would write it within half a minute
/// anyway), and its last windows stay cached, dirty. Once fresh pages prove costly (its
/// ``recycler`` is recycling), it waits as a durable file does: writing used pages back costs less
/// than taking fresh ones (512 MiB 0.50 → 0.44 s then, unchanged while pages are cheap).
///
/// A file with a write-back window or more still to come has its blocks reserved once its length is
/// known (``reserve(upTo:)``, its size unchanged, so what a crash leaves still ends where the
/// written bytes end): ext4 then maps each write to blocks already there, and write-back (started
/// window by window, above) has nothing to allocate, instead of each write reserving delayed blocks
/// and each window allocating them as it goes; 512 MiB took ~10 % less time. Smaller files keep the
/// kernel's delayed allocation, which costs them nothing on the event loop.
final class PartialFile {
    /// Bytes written between two requests to start write-back.
    static let writebackWindow: Int64 = 8 << 20
    /// How many windows behind the newest a request to start write-back also covers, so that
    /// their pages, once written (clean), are let go of; pages still dirty or being written stay.
    static let trailingWindows: Int64 = 2
    /// The requests about write-back windows, made off the event loop.
    let handOff = WritebackHandOff()

    let path: String
    private(set) var descriptor: Int32
    private(set) var length: Int64
    /// Where the bytes not yet handed to write-back begin.
    private var writebackStart: Int64
    /// Whether the file is flushed: when complete (``finish(at:)``) and at checkpoints (by its
    /// writer).
    let flushes: Bool
    /// Measures the writes of a file not flushed, and takes it once finished.
    let recycler: PageRecycler
    /// Whether this object created the file (it was not there): then nothing an earlier attempt
    /// left beside it (a finisher's replacement) can be there either.
    let created: Bool

    /// Opens (creating) the file for writing at `offset`, dropping anything after it.
    ///
    /// - Parameters:
    ///   - flushes: Whether the file is to be flushed to the device (see ``Durability``).
    ///   - recycler: Where a file not flushed goes once finished (tests pass their own).
    init(path: String, offset: Int64, flushes: Bool, recycler: PageRecycler = .shared) throws(TransferError) {
        self.path = path
        self.flushes = flushes
        self.recycler = recycler
        // A download from the start makes its file new (the common case: no size to look at, no
        // offset to set); one that is there already is opened as it is, and cut below.
        if offset == 0 {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                (descriptor, length, writebackStart, created) = (fd, 0, 0, true)
                return
            }
            guard errno == EEXIST else { throw Self.error("open", path) }
        }
        created = false
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.error("open", path) }
        // Truncate only what lies past `offset`: on ext4, truncating a file to zero (even an empty
        // one) arms a forced write-back when it is closed (auto_da_alloc), which stalls the close.
        var info = stat()
        let longer = fstat(fd, &info) != 0 || Int64(info.st_size) > offset
        guard !longer || ftruncate(fd, off_t(offset)) == 0, lseek(fd, off_t(offset), SEEK_SET) >= 0 else {
            let error = Self.error("truncate", path)
            Foundation.close(fd)
            throw error
        }
        descriptor = fd
        length = offset
        writebackStart = offset
    }

    /// Reserves the file's blocks up to `total` bytes, its length unchanged, when at least a
    /// write-back window is still to come (see the type's notes). Advice only: a file system that
    /// cannot reserve, or a disk without the room, changes nothing here (a write that finds no room
    /// fails as it would have).
    func reserve(upTo total: Int64) {
        guard total - length >= Self.writebackWindow else { return }
        _ = halftunes_reserve(descriptor, length, total - length)
    }

    /// Appends a buffer.
    func write(_ buffer: ByteBuffer) throws(TransferError) {
        // A file not flushed times its writes until the recycler has its verdict.
        let timed = !flushes && !recycler.isRecycling
        let start = timed ? DispatchTime.now().uptimeNanoseconds : 0
        var failure: TransferError?
        buffer.withUnsafeReadableBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = Self.error("write", path)
                    return
                }
                offset += written
            }
        }
        if let failure { throw failure }
        if timed {
            recycler.account(bytes: buffer.readableBytes, nanoseconds: DispatchTime.now().uptimeNanoseconds - start)
        }
        length += Int64(buffer.readableBytes)
        if length - writebackStart >= Self.writebackWindow {
            // The last window's requests first: one hand-over at a time (see WritebackHandOff).
            try settleWriteback()
            let from = max(0, writebackStart - Self.trailingWindows * Self.writebackWindow)
            let settled = writebackStart - Self.writebackWindow
            let (descriptor, end) = (descriptor, length)
            let waits = flushes || recycler.isRecycling
            handOff.start {
                if waits, settled > from {
                    // A durable file (or one whose fresh pages cost) waits for the oldest of those
                    // windows to be written (handed over a window ago: done by now, unless the
                    // device is slower than the network), so its pages are dropped below and the
                    // file runs steadily through the same memory. The wait takes the file's
                    // write-back error, if any.
                    if halftunes_wait_written(descriptor, from, settled - from) != 0, Self.isWritebackError(errno) {
                        return errno
                    }
                }
                // On Linux, DONTNEED on dirty pages starts their write-back and returns at once
                // (the pages stay cached until written); clean pages (written back) are dropped.
                // Advice only: a failure changes nothing.
                _ = posix_fadvise(descriptor, off_t(from), off_t(end - from), Int32(POSIX_FADV_DONTNEED))
                return 0
            }
            writebackStart = length
        }
    }

    /// Waits until the write-back requests handed over so far are done, and throws the file's
    /// write-back error if one of them met it.
    func settleWriteback() throws(TransferError) {
        try handOff.settle(path: path)
    }

    /// Flushes an open file's data to the device (fdatasync: the data and the length, not the
    /// timestamps). Safe from any thread while the file stays open.
    static func sync(descriptor: Int32, path: String) throws(TransferError) {
        guard fdatasync(descriptor) == 0 else { throw error("flush", path) }
    }

    /// Flushes a closed partial file's bytes to the device (nothing to do when it does not exist).
    static func sync(path: String) throws(TransferError) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { Foundation.close(descriptor) }
        try sync(descriptor: descriptor, path: path)
    }

    /// Closes the file (again is harmless). A write-back error a window's wait met leaves nothing
    /// to resume from: the file is cut to nothing (its bytes may not be on the device).
    func close() {
        guard descriptor >= 0 else { return }
        if handOff.settle() != nil { _ = ftruncate(descriptor, 0) }
        Foundation.close(descriptor)
        descriptor = -1
    }

    /// Flushes (when it ``flushes``), closes and renames the file to `destination` atomically,
    /// then flushes the folder so the rename itself survives a power cut.
    func finish(at destination: String) throws(TransferError) {
        try Self.flushAndRename(handOver(), path: path, to: destination, flushing: flushes)
        if flushes { FolderFlusher.flushNow(Self.folder(of: destination)) }
    }

    /// Flushes (when it ``flushes``), closes and renames the file to `destination` atomically,
    /// then, when it flushes, has `folders` flush the folder (with other renames, group commit:
    /// the file is announced to `folders` first, so a flush of the folder about to start covers
    /// its rename too).
    ///
    /// The flush and the rename run on a file-work thread (``FileWork``), which owns the file
    /// from then on. A file that is not flushed is renamed where the caller runs: a rename alone
    /// does not wait for the device, and is cheaper than the two thread switches; its
    /// ``recycler`` then takes it.
    func finish(at destination: String, folders: FolderFlusher) async throws(TransferError) {
        let (descriptor, path, flushes) = (try handOver(), path, flushes)
        guard flushes else {
            // Renamed first: the recycler keeps the name the file has from now on.
            guard rename(path, destination) == 0 else {
                let error = Self.error("rename", path)
                Foundation.close(descriptor)
                throw error
            }
            recycler.finished(descriptor, path: destination, length: length)
            return
        }
        let arrival = folders.announce(Self.folder(of: destination))
        do {
            try await FileWork.run { () throws(TransferError) in
                try Self.flushAndRename(descriptor, path: path, to: destination, flushing: flushes)
            }
        } catch {
            folders.withdraw(arrival)
            throw error
        }
        await folders.flush(after: arrival)
    }

    /// The open descriptor, which the caller now owns (this object no longer closes it).
    private func handOver() throws(TransferError) -> Int32 {
        try settleWriteback()
        defer { descriptor = -1 }
        return descriptor
    }

    /// Flushes `descriptor` and lets go of its pages (when `flushing`), closes it and renames
    /// `path` to `destination`. A file read again soon (tagged, played) is read from the device,
    /// at its speed; keeping every download cached would cost more (fresh pages for the next
    /// files) and fill memory.
    private static func flushAndRename(
        _ descriptor: Int32, path: String, to destination: String, flushing: Bool
    ) throws(TransferError) {
        defer { Foundation.close(descriptor) }
        if flushing {
            guard fsync(descriptor) == 0 else { throw error("flush", path) }
            // Flushed, every page is clean and dropped (advice only: a failure changes nothing).
            _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED))
        }
        guard rename(path, destination) == 0 else { throw error("rename", path) }
    }

    /// The folder of a file's path, as `NSString.deletingLastPathComponent` gives it for a file's
    /// path ("/a/b" → "/a", "/b" → "/", "b" → ""), without bridging to NSString (~4 µs a path
    /// on Linux, felt when a batch of thousands starts).
    static func folder(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        var folder = path[..<slash]
        while folder.utf8.last == UInt8(ascii: "/") { folder = folder.dropLast() }  // "/a//b" → "/a"
        return folder.isEmpty ? "/" : String(folder)
    }

    deinit { close() }

    /// Deletes the file at `path` if there is one. Looking first costs less than a failed unlink,
    /// which takes the folder's lock that every create and rename in it needs.
    static func remove(_ path: String) {
        if access(path, F_OK) == 0 { unlink(path) }
    }

    /// The bytes of the partial file at `path` a request can resume from: none without a
    /// validator to send in `If-Range`, and then the file is not even looked at (a fresh download
    /// costs no failed lookup in its folder; bytes with no validator are fetched again from 0).
    static func resumableLength(at path: String, validator: Validator) -> Int64 {
        validator.ifRange == nil ? 0 : length(at: path)
    }

    /// The length of the file at `path`, 0 when it does not exist.
    static func length(at path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Whether `code`, from a wait for write-back, is a failed write of the file's bytes (not a
    /// file system that cannot wait).
    static func isWritebackError(_ code: Int32) -> Bool { code == EIO || code == ENOSPC || code == EDQUOT }

    /// The error of a write-back a window's wait saw fail: the file's bytes may not be on the
    /// device, so it is cut at its close and nothing is resumed from it.
    static func writebackError(_ path: String, code: Int32) -> TransferError {
        let full = code == ENOSPC || code == EDQUOT
        return TransferError(
            full ? .diskFull : .fileSystem,
            "the device failed to store \(path) (\(String(cString: strerror(code)))); the partial download is discarded",
            permanent: false)
    }

    static func error(_ action: String, _ path: String) -> TransferError {
        let code = errno
        if code == ENOSPC || code == EDQUOT {
            return TransferError(
                .diskFull, "no space left on the device to \(action) \(path); the partial download is kept",
                permanent: false)
        }
        return TransferError(
            .fileSystem, "cannot \(action) \(path): \(String(cString: strerror(code)))",
            permanent: code == EACCES || code == EROFS)
    }
}
