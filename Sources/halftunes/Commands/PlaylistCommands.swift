import ArgumentParser
import Foundation
import HalfTunesKit
import HalfTunesTerminal

/// `halftunes export [ID...] [-o FILE] [--absolute]`: the library as an M3U8 playlist.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the library (or the tracks given) as an extended M3U8 playlist, for mpv, VLC and other players.")

    @Argument(help: "Track ids in the library (default: all of it, most recent first).", transform: NumberIn.trackID)
    var ids: [Int] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The album's songs in the library, in album order (an album id, or a track's for its album).", valueName: "id"),
        transform: NumberIn.albumID)
    var album: Int?

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: ArgumentHelp("Write to this file (default: standard output).", valueName: "file"))
    var output: String?

    @Flag(
        name: .long,
        help: "Absolute paths (default: relative to the playlist's folder, or to the current one for standard output).")
    var absolute = false

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions

    func validate() throws {
        if album != nil, !ids.isEmpty { throw ValidationError("give track ids or --album, not both") }
    }

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let (listing, albumSongs) = try await homeOptions.withControl(downloading: false, catalog: catalogOptions) {
                control in
                (try await control.listing(), try await album.asyncMap { try await control.album($0) })
            }
            var documents = listing.library
            if let albumSongs {
                let byID = Dictionary(documents.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                documents = albumSongs.results.compactMap { byID[$0.id] }
                let name = albumSongs.album.map { "\($0.name) — \($0.artist)" } ?? "album \(album ?? 0)"
                guard !documents.isEmpty else {
                    throw DownloadError(
                        .notFound,
                        "none of the songs of \(name) is in the library; download them: halftunes download --album \(album ?? 0)")
                }
                if documents.count < albumSongs.results.count {
                    Terminal.warn(
                        "\(DisplayWidth.printable(name)): \(documents.count) of its \(albumSongs.results.count) songs are in the library"
                    )
                }
            } else if !ids.isEmpty {
                let byID = Dictionary(documents.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                let missing = ids.filter { byID[$0] == nil }
                guard missing.isEmpty else {
                    throw DownloadError(.notFound, "not in the library: \(missing.map(String.init).joined(separator: ", "))")
                }
                documents = ids.compactMap { byID[$0] }
            }
            let file = output.map { URL(fileURLWithPath: $0).standardizedFileURL }
            let folder =
                absolute
                ? nil : (file?.deletingLastPathComponent() ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            let text = Playlist.m3u8(documents, relativeTo: folder)
            if let file {
                do { try Data(text.utf8).write(to: file, options: .atomic) } catch {
                    throw DownloadError(.badInput, "cannot write \(file.path): \(error.localizedDescription)")
                }
            } else {
                Terminal.write(text)
            }
        }
    }
}

/// `halftunes import FILE`: downloads the tracks a playlist or a list of ids or store links names.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract:
            "Download the tracks a file names: an M3U8 playlist (as export writes), track ids or store links (…?i=ID), one a line."
    )

    @Argument(help: "The file (- for standard input).") var file: String
    @Flag(name: .long, help: "Print NDJSON events instead of progress bars.") var json = false
    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var catalogOptions: CatalogOptions
    @OptionGroup var downloading: DownloadOptions

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            let text = try PlaylistInput.read(file)
            var ids: [Int] = []
            var bad = 0
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                switch Playlist.entry(String(line)) {
                case .track(let id): ids.append(id)
                case .nothing: break
                case .bad(let entry):
                    bad += 1
                    Terminal.warn(
                        "\(file):\(number + 1): \"\(DisplayWidth.printable(entry))\" is not a track id, a store link or a file HalfTunes named"
                    )
                }
            }
            if !ids.isEmpty {
                let batch = BatchFeed(ids)
                try await downloading.withControl(
                    home: homeOptions, catalog: catalogOptions, lookAhead: Array(batch.upcoming)
                ) { control, cap in
                    try await ForegroundDownloads.run(control, json: json, batch: batch, cap: cap) {
                        try await control.start($0)
                    }
                }
            }
            if bad > 0 { throw ExitCode(ExitStatus.of(.badInput)) }
            if ids.isEmpty { throw DownloadError(.badInput, "\(file) names no tracks") }
        }
    }
}

extension Optional {
    /// The value transformed by an async function, or `nil`.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
