import ArgumentParser
import DownloadService
import Foundation
import Transfers

/// `download-service`: the tutorial's download service on the command line. Each command blocks
/// its main thread on a semaphore until the session's delegate (on its own queue) says it is done,
/// as command-line URLSession code does. One line per event on standard output.
@main
struct DownloadServiceExample: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download-service",
        abstract: "Download song previews with ResumableURLSession, the way Apple's tutorial does.",
        subcommands: [Search.self, Fetch.self, Pause.self, Resume.self, Recover.self])
}

/// Options every command shares.
struct SessionOptions: ParsableArguments {
    @Option(name: .customLong("to"), help: "Folder the finished previews are moved into.")
    var musicFolder: String = "."

    @Option(help: "Run in a background session with this identifier (its downloads survive the process).")
    var background: String?

    func makeService(
        _ service: DownloadService = DownloadService(), onReport: @escaping @Sendable (SongDownloads.Report) -> Void
    ) -> (DownloadService, SongDownloads) {
        let delegate = SongDownloads(
            service: service, musicFolder: URL(fileURLWithPath: musicFolder), report: onReport)
        let configuration = background.map { ResumableURLSessionConfiguration.background(withIdentifier: $0) } ?? .default
        service.downloadsSession = ResumableURLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        return (service, delegate)
    }
}

/// Writes one line to standard output at once (a pipe would otherwise hold it back).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func describe(_ report: SongDownloads.Report) -> String {
    switch report {
    case .progress(let url, let written, let expected): "progress \(url.lastPathComponent) \(written) \(expected)"
    case .resumed(let url, let offset, let expected): "resumed \(url.lastPathComponent) \(offset) \(expected)"
    case .saved(let url, let file): "saved \(url.lastPathComponent) \(file.path)"
    case .finished(let url): "finished \(url.lastPathComponent)"
    case .failed(let url, let reason, let data): "failed \(url.lastPathComponent) \(data == nil ? "-" : "resumable") \(reason)"
    case .cancelled(let url): "cancelled \(url.lastPathComponent)"
    case .backgroundEventsDelivered: "background-events-delivered"
    case .invalid(let reason): "invalid \(reason)"
    }
}

/// Counts the downloads still to end; the main thread waits for zero.
final class Countdown: @unchecked Sendable {
    private let lock = NSLock()
    private var left: Int
    let done = DispatchSemaphore(value: 0)

    init(_ count: Int) { left = count }

    func tick() {
        let finished = lock.withLock { () -> Bool in
            left -= 1
            return left == 0
        }
        if finished { done.signal() }
    }
}

extension DownloadServiceExample {
    struct Search: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Search the catalog with the tutorial's QueryService (one data task); a line a track.")

        @Option(help: "The catalog's base URL (its /search is asked).") var catalog = "https://itunes.apple.com"
        @Argument(help: "What to search for.") var term: String

        func run() throws {
            guard let base = URL(string: catalog) else { throw ValidationError("not a URL: \(catalog)") }
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var failure = ""
            // Held until the answer came, as the tutorial's view controller holds its QueryService.
            let queryService = QueryService(searchURL: base.appendingPathComponent("search"))
            queryService.getSearchResults(searchTerm: term) { tracks, errors in
                for track in tracks ?? [] { say("track \(track.artist) — \(track.name) \(track.previewURL.absoluteString)") }
                failure = tracks == nil ? errors : ""
                done.signal()
            }
            done.wait()
            withExtendedLifetime(queryService) {}
            if !failure.isEmpty {
                FileHandle.standardError.write(Data(("download-service: " + failure).utf8))
                throw ExitCode(1)
            }
        }
    }

    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Download previews and move them into the folder.")

        @OptionGroup var options: SessionOptions
        @Option(
            name: .customLong("cancel-at"), help: "Cancel each download once this many bytes are on disk (the tutorial's Cancel)."
        )
        var cancelAt: Int64?
        @Argument(help: "Preview URLs.") var urls: [String]

        func run() throws {
            let tracks = try urls.map { text -> Track in
                guard let url = URL(string: text), url.scheme != nil else { throw ValidationError("not a URL: \(text)") }
                return Track(name: url.deletingPathExtension().lastPathComponent, artist: "Unknown", previewURL: url)
            }
            let countdown = Countdown(tracks.count)
            let service = DownloadService()
            let cancelAt = cancelAt
            _ = options.makeService(service) { report in
                say(describe(report))
                switch report {
                case .finished, .failed, .invalid, .cancelled: countdown.tick()
                case .progress(let url, let written, _) where cancelAt.map({ written >= $0 }) == true:
                    if let track = tracks.first(where: { $0.previewURL == url }) { service.cancelDownload(track) }
                default: break
                }
            }
            for track in tracks { service.startDownload(track) }
            countdown.done.wait()
        }
    }

    struct Pause: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download a preview, pause it once enough bytes arrived, and write its resume data to a file.")

        @OptionGroup var options: SessionOptions
        @Option(help: "Pause once this many bytes are on disk.") var at: Int64
        @Option(name: .customLong("resume-data"), help: "Where to write the resume data.") var resumeDataFile: String
        @Argument(help: "The preview URL.") var url: String

        func run() throws {
            guard let previewURL = URL(string: url) else { throw ValidationError("not a URL: \(url)") }
            let track = Track(name: previewURL.lastPathComponent, artist: "Unknown", previewURL: previewURL)
            let paused = DispatchSemaphore(value: 0)
            let once = NSLock()
            nonisolated(unsafe) var pausing = false
            let service = DownloadService()
            let file = URL(fileURLWithPath: resumeDataFile)
            _ = options.makeService(service) { report in
                say(describe(report))
                guard case .progress(_, let written, _) = report, written >= at else {
                    if case .finished = report { paused.signal() }
                    return
                }
                let first = once.withLock { () -> Bool in
                    defer { pausing = true }
                    return !pausing
                }
                guard first else { return }
                service.pauseDownload(track) { data in
                    if let data {
                        try? data.write(to: file)
                        say("paused \(data.count)")
                    } else {
                        say("paused without resume data")
                    }
                    paused.signal()
                }
            }
            service.startDownload(track)
            paused.wait()
        }
    }

    struct Resume: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resume a download from resume data in a file.")

        @OptionGroup var options: SessionOptions
        @Argument(help: "The file holding the resume data.") var resumeDataFile: String

        func run() throws {
            let data = try Data(contentsOf: URL(fileURLWithPath: resumeDataFile))
            let countdown = Countdown(1)
            let (service, _) = options.makeService { report in
                say(describe(report))
                switch report {
                case .finished, .failed, .invalid: countdown.tick()
                default: break
                }
            }
            // The track is whatever the resume data continues; the delegate names it by URL.
            let placeholder = URL(fileURLWithPath: "/resume")
            service.resumeDownload(Track(name: "resumed", artist: "Unknown", previewURL: placeholder), resumeData: data)
            countdown.done.wait()
        }
    }

    struct Recover: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take up a background session's downloads after its process died, and finish them.")

        @OptionGroup var options: SessionOptions
        @Option(
            name: .customLong("crash-after-saving"),
            help: "Kill this process (SIGKILL) inside the delegate once it has saved this many previews: a crash mid-delivery.")
        var crashAfterSaving: Int?

        func run() throws {
            guard options.background != nil else { throw ValidationError("recover needs --background IDENTIFIER") }
            let delivered = DispatchSemaphore(value: 0)
            let crashAfter = crashAfterSaving
            nonisolated(unsafe) var saved = 0
            let (service, _) = options.makeService { report in
                say(describe(report))
                if case .saved = report {
                    saved += 1
                    if saved == crashAfter { kill(getpid(), SIGKILL) }
                }
                if case .backgroundEventsDelivered = report { delivered.signal() }
                if case .invalid = report { delivered.signal() }
            }
            service.downloadsSession.getAllTasks { tasks in
                for task in tasks {
                    guard let url = task.originalRequest?.url else { continue }
                    say("task \(task.taskIdentifier) \(url.lastPathComponent) \(task.taskDescription ?? "-")")
                    service.adopt(task, track: Track(name: url.lastPathComponent, artist: "Unknown", previewURL: url))
                }
                if tasks.isEmpty { delivered.signal() }
            }
            delivered.wait()
        }
    }
}
