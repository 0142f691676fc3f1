import ArgumentParser
import Foundation
import HalfTunesKit
import ITunesSearch
import Logging

/// `halftunes download ID...`: downloads previews into the library, in the foreground.
struct DownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download tracks' previews into the library (Ctrl-C pauses; run again to resume).")

    @Argument(help: "Track ids, as `halftunes search` shows them.")
    var ids: [Int]

    @Flag(name: .long, help: "Print NDJSON events instead of progress bars.")
    var json = false

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions

    func validate() throws {
        guard ids.allSatisfy({ $0 > 0 }) else { throw ValidationError("track ids are positive numbers") }
    }

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            if let server = homeOptions.runningServer {
                try await server.follow(json: json) {
                    var statuses: [DownloadStatus] = []
                    for id in ids { statuses.append(try await server.status(.POST, "/api/downloads/\(id)")) }
                    return statuses
                }
                return
            }
            try await ForegroundDownloads.runLocally(try await homeOptions.openService(downloading: true), json: json) { service in
                try await service.download(try await tracksToDownload(service))
            }
        }
    }

    /// The tracks for the ids: from the library or the session when known there (no network
    /// needed to resume), else from the catalog.
    private func tracksToDownload(_ service: DownloadService) async throws -> [Track] {
        var known: [Int: Track] = [:]
        for id in Set(ids) {
            if let status = try await service.status(trackID: id) { known[id] = status.track }
        }
        let missing = Set(ids).subtracting(known.keys)
        if !missing.isEmpty {
            let catalog = try ITunesCatalog(
                configuration: try catalogOptions.configuration(), logger: Logger(label: "halftunes.catalog"))
            for track in try await catalog.lookup(ids: Array(missing)) { known[track.id] = track }
        }
        let unknown = ids.filter { known[$0] == nil }
        guard unknown.isEmpty else {
            throw Failure("the catalog has no track \(unknown.map(String.init).joined(separator: ", "))")
        }
        var seen = Set<Int>()
        return ids.filter { seen.insert($0).inserted }.compactMap { known[$0] }
    }
}
