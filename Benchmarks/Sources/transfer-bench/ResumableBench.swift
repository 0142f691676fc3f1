import Foundation
import Transfers

/// The same job through ``ResumableURLSession`` (the URLSession-shaped layer over the engine), the
/// way an app ported from Apple's URLSession does it: a delegate that moves each finished file into
/// the output folder.
enum ResumableBench {
    /// Downloads every URL, `concurrency` at once; returns the bytes moved into place and the failures.
    static func run(urls: [URL], output: URL, concurrency: Int, durability: Durability) -> (bytes: Int64, failed: Int) {
        let configuration = ResumableURLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = concurrency
        configuration.durability = durability
        // On the output's file system, so handing a file over is a rename, as the engine's own is.
        configuration.stateDirectory = output.appendingPathComponent(".bench-state")
        let mover = Mover(output: output, count: urls.count)
        let session = ResumableURLSession(configuration: configuration, delegate: mover, delegateQueue: nil)
        for (index, url) in urls.enumerated() {
            let task = session.downloadTask(with: url)
            task.taskDescription = "\(index)-\(url.lastPathComponent)"
            task.resume()
        }
        mover.done.wait()
        session.finishTasksAndInvalidate()
        return mover.result
    }

    /// Moves finished files into place and counts the ends.
    final class Mover: ResumableDownloadDelegate, @unchecked Sendable {
        let output: URL
        let done = DispatchSemaphore(value: 0)
        private var left: Int
        private(set) var result: (bytes: Int64, failed: Int) = (0, 0)

        init(output: URL, count: Int) {
            self.output = output
            left = count
        }

        // Calls come one at a time on the session's serial delegate queue: no lock needed.
        func urlSession(
            _ session: ResumableURLSession, downloadTask: ResumableDownloadTask, didFinishDownloadingTo location: URL
        ) {
            let destination = output.appendingPathComponent(downloadTask.taskDescription ?? location.lastPathComponent)
            do {
                try FileManager.default.moveItem(at: location, to: destination)
                result.bytes += downloadTask.countOfBytesReceived
            } catch {
                result.failed += 1
            }
        }

        func urlSession(_ session: ResumableURLSession, task: ResumableDownloadTask, didCompleteWithError error: (any Error)?) {
            if let error {
                result.failed += 1
                FileHandle.standardError.write(Data("failed: \(error.localizedDescription)\n".utf8))
            }
            left -= 1
            if left == 0 { done.signal() }
        }
    }
}
