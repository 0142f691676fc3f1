import Foundation
import NIOCore

/// The `.part` file a download streams into: opened at an offset, written buffer by buffer,
/// flushed (when it ``flushes``), and renamed into place when complete.
///
/// What is on disk is always a prefix of the body: bytes are appended in order, and opening at an
/// offset drops whatever lies past it. A file that flushes is on the device, data and length,
/// before its rename, and its folder after it, so a finished file survives a power cut.
final class PartialFile {
    let path: String
    private(set) var descriptor: Int32
    private(set) var length: Int64
    /// Whether the file is flushed: when complete (``finish(at:)``) and at checkpoints (by its
    /// writer).
    let flushes: Bool
    /// Whether this object created the file (it was not there): then nothing an earlier attempt
    /// left beside it (a finisher's replacement) can be there either.
    let created: Bool

    /// Opens (creating) the file for writing at `offset`, dropping anything after it.
    ///
    /// - Parameter flushes: Whether the file is to be flushed to the device (see ``Durability``).
    init(path: String, offset: Int64, flushes: Bool) throws(TransferError) {
        self.path = path
        self.flushes = flushes
        // A download from the start makes its file new (the common case: no size to look at, no
        // offset to set); one that is there already is opened as it is, and cut below.
        if offset == 0 {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                (descriptor, length, created) = (fd, 0, true)
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
    }

    /// Appends a buffer.
    func write(_ buffer: ByteBuffer) throws(TransferError) {
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
        length += Int64(buffer.readableBytes)
    }

    /// Flushes an open file's data to the device (on Linux fdatasync: the data and the length, not the
    /// timestamps). Safe from any thread while the file stays open.
    static func sync(descriptor: Int32, path: String) throws(TransferError) {
        #if os(Linux)
            guard fdatasync(descriptor) == 0 else { throw error("flush", path) }
        #else
            guard fsync(descriptor) == 0 else { throw error("flush", path) }
        #endif
    }

    /// Flushes a closed partial file's bytes to the device (nothing to do when it does not exist).
    static func sync(path: String) throws(TransferError) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { Foundation.close(descriptor) }
        try sync(descriptor: descriptor, path: path)
    }

    /// Closes the file (again is harmless).
    func close() {
        guard descriptor >= 0 else { return }
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
    /// does not wait for the device.
    func finish(at destination: String, folders: FolderFlusher) async throws(TransferError) {
        let (descriptor, path, flushes) = (handOver(), path, flushes)
        guard flushes else {
            defer { Foundation.close(descriptor) }
            guard rename(path, destination) == 0 else { throw Self.error("rename", path) }
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
    private func handOver() -> Int32 {
        defer { descriptor = -1 }
        return descriptor
    }

    /// Flushes `descriptor` (when `flushing`), closes it and renames `path` to `destination`.
    private static func flushAndRename(
        _ descriptor: Int32, path: String, to destination: String, flushing: Bool
    ) throws(TransferError) {
        defer { Foundation.close(descriptor) }
        if flushing {
            guard fsync(descriptor) == 0 else { throw error("flush", path) }
        }
        guard rename(path, destination) == 0 else { throw error("rename", path) }
    }

    /// The folder of a file's path, as `NSString.deletingLastPathComponent` gives it for a file's
    /// path ("/a/b" → "/a", "/b" → "/", "b" → "").
    static func folder(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        var folder = path[..<slash]
        while folder.utf8.last == UInt8(ascii: "/") { folder = folder.dropLast() }  // "/a//b" → "/a"
        return folder.isEmpty ? "/" : String(folder)
    }

    deinit { close() }

    /// Deletes the file at `path` if there is one.
    static func remove(_ path: String) {
        unlink(path)
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
