import Foundation
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `songs-alone start URL… --to FOLDER`: starts a background download of each URL and waits (to
/// be killed). `songs-alone recover --to FOLDER`: makes the session again, saves each file it is
/// handed, and ends once the session says its events are delivered. One line per event.
final class Songs: ResumableDownloadDelegate, Sendable {
    let folder: URL
    let delivered = DispatchSemaphore(value: 0)

    init(folder: URL) { self.folder = folder }

    func urlSession(_ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didFinishDownloadingTo location: URL) {
        let name = downloadTask.originalRequest?.url?.lastPathComponent ?? "unknown"
        let target = folder.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: target)
        do {
            try FileManager.default.moveItem(at: location, to: target)
            let size = (try? FileManager.default.attributesOfItem(atPath: target.path))?[.size] as? Int ?? -1
            say("saved \(name) \(size)")
        } catch {
            say("cannot save \(name): \(error)")
        }
    }

    func urlSession(
        _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        say("progress \(downloadTask.originalRequest?.url?.lastPathComponent ?? "") \(totalBytesWritten)")
    }

    func urlSession(_ session: ResumableURLSession, task: ResumableDownloadTask, didCompleteWithError error: (any Error)?) {
        if let error { say("failed \(task.originalRequest?.url?.lastPathComponent ?? ""): \(error.localizedDescription)") }
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: ResumableURLSession) {
        say("events-delivered")
        delivered.signal()
    }

    private func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
}

@main
struct SongsAlone {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first, let to = arguments.firstIndex(of: "--to"), to + 1 < arguments.count else {
            FileHandle.standardError.write(Data("usage: songs-alone start URL… --to FOLDER | recover --to FOLDER\n".utf8))
            exit(2)
        }
        let folder = URL(fileURLWithPath: arguments[to + 1])
        arguments.removeSubrange(to...to + 1)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let songs = Songs(folder: folder)
        let session = ResumableURLSession(
            configuration: .background(withIdentifier: "org.example.alone"), delegate: songs, delegateQueue: nil)
        switch command {
        case "start":
            for url in arguments.dropFirst().compactMap(URL.init(string:)) { session.downloadTask(with: url).resume() }
            while true { sleep(60) }
        case "recover":
            guard songs.delivered.wait(timeout: .now() + 60) == .success else {
                FileHandle.standardError.write(Data("songs-alone: no events in 60 s\n".utf8))
                exit(1)
            }
            session.finishTasksAndInvalidate()
        default:
            FileHandle.standardError.write(Data("songs-alone: no command \(command)\n".utf8))
            exit(2)
        }
    }
}
