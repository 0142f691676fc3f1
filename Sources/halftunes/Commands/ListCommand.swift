import ArgumentParser
import Foundation
import HalfTunesKit

/// `halftunes list`: downloads in flight and the library.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Show downloads in flight and the library.")

    @Flag(name: .long, help: "Print JSON instead of tables.") var json = false
    @OptionGroup var homeOptions: HomeOptions

    private struct Listing: Encodable {
        var downloads: [DownloadStatus]
        var library: [DownloadStatus]
    }

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let (downloads, library) = try await fetch()
            if json {
                Terminal.write(try JSONOutput.encode(Listing(downloads: downloads, library: library)) + "\n")
                return
            }
            if downloads.isEmpty && library.isEmpty {
                Terminal.write("Nothing downloaded yet. Try: halftunes search TERM, then halftunes download ID.\n")
                return
            }
            if !downloads.isEmpty {
                Terminal.write("Downloads\n")
                for status in downloads {
                    let progress = ProgressText.progress(received: status.receivedBytes, expected: status.expectedBytes)
                    let reason = status.failure.map { " — \($0)" } ?? ""
                    Terminal.write(
                        "  \(status.state.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)) \(progress)  "
                            + "\(DisplayWidth.printable(status.track.name)) — \(DisplayWidth.printable(status.track.artist)) [\(status.trackID)]\(reason)\n")
                }
            }
            if !library.isEmpty {
                Terminal.write("Library (\(homeOptions.resolved.library.path))\n")
                for status in library {
                    Terminal.write("  \(status.file?.lastPathComponent ?? "")  \(ProgressText.bytes(status.receivedBytes))\n")
                }
            }
        }
    }

    /// From the running server if there is one, else from the session and library directly.
    private func fetch() async throws -> (downloads: [DownloadStatus], library: [DownloadStatus]) {
        if let server = homeOptions.runningServer { return try await server.listing() }
        let service = try await homeOptions.openService(downloading: false)
        let downloads = await service.downloads()
        do {
            var library: [DownloadStatus] = []
            for item in try await service.libraryItems() {
                if let status = try await service.status(trackID: item.track.id) { library.append(status) }
            }
            await service.close()
            return (downloads, library)
        } catch {
            await service.close()
            throw error
        }
    }
}
