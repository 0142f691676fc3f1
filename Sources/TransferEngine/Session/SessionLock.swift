import Foundation

/// Makes one process at a time the owner of a session: an exclusive `flock` on a lock file that
/// also names the owner. The kernel releases it when the owner dies, even by SIGKILL.
final class SessionLock: Sendable {
    private let descriptor: Int32
    let path: String

    /// How the lock file names its owner: this, its process id, then its command.
    private static let ownerPrefix = "process "

    /// Takes the lock, or fails naming the process that holds it.
    init(path: String) throws(TransferError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw TransferError(
                .fileSystem, "cannot open the session lock \(path): \(String(cString: strerror(errno)))", permanent: true)
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let owner = Self.readOwner(fd)
            close(fd)
            throw TransferError(
                .sessionLocked,
                "the transfer session is in use by \(owner ?? "another process") (lock \(path))",
                permanent: true)
        }
        descriptor = fd
        let command = ProcessInfo.processInfo.arguments.prefix(2).map { URL(fileURLWithPath: $0).lastPathComponent }
        let text = "\(Self.ownerPrefix)\(getpid()) (\(command.joined(separator: " ")))\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    /// Releases the lock.
    func release() {
        _ = ftruncate(descriptor, 0)
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Whether a live process owns the session whose lock file is `path`, read from the owner
    /// that the file names (without taking the lock, so an owner opening the session meanwhile
    /// is never refused because of the look). An owner killed outright leaves its name behind
    /// but no process: then `false`, as when no one has the session or it was never opened.
    static func hasLiveOwner(path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // "process 1234 (halftunes download)", as the owner wrote it.
        guard let owner = readOwner(fd), owner.hasPrefix(ownerPrefix),
            let pid = Int32(owner.dropFirst(ownerPrefix.count).prefix { $0.isNumber }), pid > 0
        else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    private static func readOwner(_ fd: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = pread(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
