import Foundation

/// Why a folder cannot be made, in words a person can act on: Foundation's own error for a path
/// through a file reads "The operation could not be completed. (NSCocoaErrorDomain error 512.)".
public enum FolderProblem {
    /// The file (not a folder) in the way of making `folder`: the folder itself or the first of
    /// its parents that exists and is not a folder; `nil` when there is none.
    public static func fileInTheWay(of folder: URL) -> String? {
        var path = folder.standardizedFileURL.path
        while true {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
                return isFolder.boolValue ? nil : path
            }
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else { return nil }
            path = parent
        }
    }

    /// The folder this process may not open on the way to `folder` (no read or search
    /// permission): `folder` itself or the first of its parents that exists; `nil` when none.
    public static func closedFolder(on folder: URL) -> String? {
        var path = folder.standardizedFileURL.path
        while true {
            if FileManager.default.fileExists(atPath: path) { return access(path, R_OK | X_OK) == 0 ? nil : path }
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else { return nil }
            path = parent
        }
    }

    /// Why making `folder` failed with `error`: a file in the way, else the system's reason
    /// ("Permission denied", "No space left on device"), else Foundation's description.
    public static func reason(creating folder: URL, failedWith error: any Error) -> String {
        if let file = fileInTheWay(of: folder) { return "\(file) is a file, not a folder" }
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        guard let posix = [underlying, error as NSError].compactMap({ $0 }).first(where: { $0.domain == NSPOSIXErrorDomain })
        else { return error.localizedDescription }
        return String(cString: strerror(Int32(posix.code)))
    }
}
