import DemoCatalog
import Foundation
import TestSupport
import Testing
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The example program (`download-service`, the tutorial's download service on ResumableURLSession)
/// run as a child process against a local DemoCatalog: resume data and background sessions across
/// processes, and SIGKILL.
@Suite("download-service example", .timeLimit(.minutes(1)))
struct DownloadServiceExampleTests {
    /// Runs the example with its state (XDG_STATE_HOME) in `state`.
    private func start(_ arguments: [String], state: URL) throws -> ChildProcess {
        try ChildProcess(
            try BuiltProducts.executable("download-service"), arguments, environment: ["XDG_STATE_HOME": state.path])
    }

    /// The `progress NAME WRITTEN EXPECTED` lines for a file, as numbers.
    private func progress(_ output: String, _ name: String) -> [(Int64, Int64)] {
        output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 4, fields[0] == "progress", fields[1] == name, let written = Int64(fields[2]),
                let expected = Int64(fields[3])
            else { return nil }
            return (written, expected)
        }
    }

    @Test("the tutorial's QueryService: one data task, its JSON read into tracks, each with its preview URL")
    func search() async throws {
        try await withDemoCatalog { catalog, base in
            try await withTemporaryDirectory { folder in
                let result = try await start(["search", "--catalog", base.absoluteString, "love"], state: folder).wait()
                #expect(result.status == 0, "\(result.stderr)")
                let expected = catalog.tracks.filter { "\($0.name) \($0.artist) \($0.album)".lowercased().contains("love") }
                let lines = result.stdout.split(separator: "\n").map(String.init)
                #expect(lines == expected.map { "track \($0.artist) — \($0.name) \(base)/previews/\($0.id).wav" })
                try await withRefusingPort { refused in
                    let failed = try await start(["search", "--catalog", refused.absoluteString, "love"], state: folder).wait()
                    #expect(
                        failed.status == 1 && failed.stderr.hasPrefix("download-service: DataTask error: "), "\(failed.stderr)")
                }
            }
        }
    }

    @Test("a preview the server does not have: didCompleteWithError tells the service (the tutorial's own code never listens)")
    func missingPreview() async throws {
        try await withDemoCatalog { _, base in
            try await withTemporaryDirectory { folder in
                let result = try await start(
                    ["fetch", "--to", folder.appendingPathComponent("Music").path, "\(base)/previews/9999.wav"], state: folder
                ).wait()
                #expect(result.status == 0)
                #expect(result.stdout.hasPrefix("failed 9999.wav - the server answered HTTP 404"), "\(result.stdout)")
            }
        }
    }

    @Test("the tutorial's Cancel: the download ends as cancelled, no file kept, nothing left in the session's folder")
    func cancel() async throws {
        try await withDemoCatalog { catalog, base in
            catalog.setFaults(PreviewFaults(bytesPerSecond: 400_000), for: 1006)
            try await withTemporaryDirectory { folder in
                let music = folder.appendingPathComponent("Music")
                let result = try await start(
                    ["fetch", "--cancel-at", "100000", "--to", music.path, "\(base)/previews/1006.wav"], state: folder
                ).wait()
                #expect(result.status == 0, "\(result.stderr)")
                let lines = result.stdout.split(separator: "\n")
                #expect(lines.last == "cancelled 1006.wav", "\(result.stdout)")
                #expect(!lines.contains { $0.hasPrefix("saved") })
                #expect(filesIn(music).isEmpty)
                #expect(filesIn(folder.appendingPathComponent("resumable-urlsession/default/downloads")).isEmpty)
            }
        }
    }

    @Test("three previews downloaded by a process whose main thread waits on a semaphore; progress ends at size/size")
    func fetch() async throws {
        try await withDemoCatalog { catalog, base in
            try await withTemporaryDirectory { folder in
                let ids = [1001, 1002, 1003]
                let music = folder.appendingPathComponent("Music")
                let child = try start(
                    ["fetch", "--to", music.path] + ids.map { "\(base)/previews/\($0).wav" }, state: folder)
                let result = await child.wait()
                #expect(result.status == 0, "\(result.stderr)")
                for id in ids {
                    let preview = try #require(await catalog.preview(for: id))
                    let size = Int64(preview.data.count)
                    #expect(sha256Hex(try Data(contentsOf: music.appendingPathComponent("\(id).wav"))) == sha256Hex(preview.data))
                    #expect(progress(result.stdout, "\(id).wav").last.map { $0 == (size, size) } == true)
                }
                // Nothing is left in the session's download folder.
                #expect(filesIn(folder.appendingPathComponent("resumable-urlsession/default/downloads")).isEmpty)
            }
        }
    }

    @Test("resume data written to a file by one process continues in another, fetching only the rest (206)")
    func resumeInAnotherProcess() async throws {
        try await withDemoCatalog { catalog, base in
            let preview = try #require(await catalog.preview(for: 1013))
            let size = preview.data.count
            catalog.setFaults(PreviewFaults(bytesPerSecond: 1_000_000), for: 1013)
            try await withTemporaryDirectory { folder in
                let url = "\(base)/previews/1013.wav"
                let dataFile = folder.appendingPathComponent("song.resumedata")
                let paused = try await start(
                    ["pause", url, "--at", "200000", "--resume-data", dataFile.path], state: folder
                ).wait()
                #expect(paused.status == 0, "\(paused.stderr)")
                #expect(paused.stdout.contains("paused "))
                let data = try Data(contentsOf: dataFile)
                #expect(data.count < 1024)

                catalog.setFaults(PreviewFaults(), for: 1013)
                let music = folder.appendingPathComponent("Music")
                let resumed = try await start(["resume", dataFile.path, "--to", music.path], state: folder).wait()
                #expect(resumed.status == 0, "\(resumed.stderr)")
                #expect(sha256Hex(try Data(contentsOf: music.appendingPathComponent("1013.wav"))) == sha256Hex(preview.data))
                let announced = resumed.stdout.split(separator: "\n").first { $0.hasPrefix("resumed 1013.wav ") }
                let offset = try #require(announced.flatMap { Int($0.split(separator: " ")[2]) })
                #expect(offset >= 200_000)
                let last = try #require(catalog.previewRequests.last { $0.trackId == 1013 })
                #expect(last.status == 206)
                #expect(last.range == "bytes=\(offset)-")
                #expect(catalog.bytesSent(for: 1013) <= size + 128 * 1024)
            }
        }
    }

    @Test(
        "a background session killed with SIGKILL: the next process with its identifier finishes both files from the bytes on disk"
    )
    func backgroundSurvivesKill() async throws {
        try await withDemoCatalog { catalog, base in
            let ids = [1014, 1015]
            for id in ids { catalog.setFaults(PreviewFaults(bytesPerSecond: 400_000), for: id) }
            // Held there, so the kill finds both unfinished however slow the machine.
            let held = 300_000
            for id in ids { catalog.hold(id, atByte: held) }
            defer { for id in ids { catalog.release(id) } }
            try await withTemporaryDirectory { folder in
                let music = folder.appendingPathComponent("Music")
                let first = try start(
                    ["fetch", "--background", "org.example.songs", "--to", music.path] + ids.map { "\(base)/previews/\($0).wav" },
                    state: folder)
                for id in ids {
                    let seen = await first.waitForLine { line -> Bool? in
                        let fields = line.split(separator: " ")
                        return fields.count == 4 && fields[1] == "\(id).wav" && (Int(fields[2]) ?? 0) >= 100_000 ? true : nil
                    }
                    #expect(seen == true, "\(first.stdoutSoFar)")
                }

                // While it lives, the identifier is its: a second owner gets a clear error naming it.
                let configuration = ResumableURLSessionConfiguration.background(withIdentifier: "org.example.songs")
                configuration.stateDirectory = folder.appendingPathComponent("resumable-urlsession")
                let recorder = InvalidationRecorder()
                let second = ResumableURLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
                let refusal = try #require(await recorder.error as? URLError)
                #expect(refusal.code == .backgroundSessionInUseByAnotherProcess)
                #expect(refusal.localizedDescription.contains("process \(first.pid)"), "\(refusal.localizedDescription)")
                let refused = second.downloadTask(with: URL(string: "\(base)/previews/1016.wav")!)
                refused.resume()
                _ = await recorder.completed.first { _ in true }
                #expect((refused.error as? URLError)?.code == .backgroundSessionInUseByAnotherProcess)

                first.signal(SIGKILL)
                #expect(await first.wait().signaled)
                let downloads = folder.appendingPathComponent("resumable-urlsession/sessions/org.example.songs/downloads")
                let partials = filesIn(downloads).filter { $0.hasSuffix(".part") }
                #expect(partials.count == 2)
                let onDisk = Set(
                    try partials.map {
                        try FileManager.default.attributesOfItem(atPath: downloads.appendingPathComponent($0).path)[.size] as! Int
                    })
                #expect(onDisk.allSatisfy { $0 >= 100_000 })
                let before = catalog.previewRequests.count

                for id in ids {
                    catalog.setFaults(PreviewFaults(), for: id)
                    catalog.release(id)
                }
                let relaunched = try await start(
                    ["recover", "--background", "org.example.songs", "--to", music.path], state: folder
                ).wait()
                #expect(relaunched.status == 0, "\(relaunched.stderr)")
                let lines = relaunched.stdout.split(separator: "\n").map(String.init)
                #expect(lines.filter { $0 == "background-events-delivered" }.count == 1)
                for id in ids {
                    let preview = try #require(await catalog.preview(for: id))
                    #expect(sha256Hex(try Data(contentsOf: music.appendingPathComponent("\(id).wav"))) == sha256Hex(preview.data))
                    // originalRequest and taskDescription came back with the task.
                    #expect(lines.contains { $0.hasPrefix("task ") && $0.hasSuffix(" \(id).wav Unknown — \(id)") }, "\(lines)")
                    // The server's log: the new process asked only for what was not on disk.
                    let after = catalog.previewRequests.dropFirst(before).filter { $0.trackId == id }
                    #expect(after.count == 1)
                    #expect(after.first?.status == 206)
                    let offset = try #require(after.first?.range.flatMap { Int($0.dropFirst(6).dropLast()) })
                    #expect(onDisk.contains(offset))
                    #expect(catalog.bytesSent(for: id) <= preview.data.count + 128 * 1024)
                }
                #expect(filesIn(downloads).isEmpty)
            }
        }
    }
}

/// Records a session's invalidation error and its tasks' completions.
final class InvalidationRecorder: ResumableDownloadDelegate, @unchecked Sendable {
    private let (errors, errorFeed) = AsyncStream<(any Error)?>.makeStream()
    let (completed, completedFeed) = AsyncStream<Int>.makeStream()

    /// The error the session became invalid with.
    var error: (any Error)? {
        get async {
            for await error in errors { return error }
            return nil
        }
    }

    func urlSession(_ session: ResumableURLSession, didBecomeInvalidWithError error: (any Error)?) { errorFeed.yield(error) }

    func urlSession(_ session: ResumableURLSession, task: ResumableDownloadTask, didCompleteWithError error: (any Error)?) {
        completedFeed.yield(task.taskIdentifier)
    }
}
