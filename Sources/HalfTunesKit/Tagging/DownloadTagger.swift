import Foundation
import ITunesSearch
import Logging
import MediaTags
import NetworkBasics
import Synchronization
import TransferEngine

/// Writes a track's tags and cover into its downloaded file: the last step of each download
/// (as the session's ``TransferFinisher``) and `halftunes tag` for files downloaded before.
///
/// Tagging never fails a download: a file that is not a container MediaTags knows, or that does
/// not parse, is kept exactly as downloaded, with a warning that its events and `list` show.
final class DownloadTagger: Sendable {
    private let artwork: ArtworkFetcher?
    /// Whether the downloads this process begins are tagged as they finish (`halftunes tag`
    /// tags either way; a download begun elsewhere keeps the choice its tag records).
    let writesTags: Bool
    private let logger: Logger
    /// Warnings of downloads finished but not yet filed in the library, by track id.
    private let warnings = Mutex<[Int: String]>([:])
    /// The tracks of downloads begun by this process, by transfer: the finisher reads the track
    /// here instead of decoding the transfer's tag (one JSON decoding a download fewer). Transfers
    /// resumed from an earlier run are not here; their tag is decoded.
    private let tracks = Mutex<[TransferID: Track]>([:])

    init(
        options: TaggingOptions, fetchesArtwork: Bool? = nil, cacheFolder: URL, trustRoots: TrustRoots = .system,
        proxies: ProxySettings = .none, logger: Logger
    ) {
        artwork =
            fetchesArtwork ?? options.fetchesArtwork
            ? ArtworkFetcher(cacheFolder: cacheFolder, trustRoots: trustRoots, proxies: proxies, logger: logger) : nil
        writesTags = options.writesTags
        self.logger = logger
    }

    /// The session's finisher: tags a complete download into its replacement file.
    func finish(_ download: CompletedDownload) async -> Bool {
        let known = tracks.withLock { $0.removeValue(forKey: download.transferID) }
        let track: Track
        if let known {
            track = known
        } else {
            // Begun by another process: as its tag says (a `--no-tags` download stays as sent).
            guard let tag = DownloadTag(download.tag), tag.writesTags else { return false }
            track = tag.track
        }
        // A stand-in for a file that crashes the tagger, for the tests of the engine's poison
        // rule: that track's finishing ends the process 0.1 s in, as the kernel ends one that
        // faults, while every other track's takes 0.5 s (so that one is finishing beside it).
        if let crashing = Self.crashesWhileFinishing {
            try? await Task.sleep(for: .milliseconds(crashing == track.id ? 100 : 500))
            if crashing == track.id { kill(getpid(), SIGKILL) }
        }
        let warning = await tag(track, file: download.filePath, writingTo: download.replacementPath)
        warnings.withLock { $0[track.id] = warning }
        return warning == nil
    }

    /// `HALFTUNES_TEST_CRASH_WHILE_FINISHING`: the track whose finishing ends the process (tests only).
    static let crashesWhileFinishing = ProcessInfo.processInfo.environment["HALFTUNES_TEST_CRASH_WHILE_FINISHING"].flatMap {
        Int($0)
    }

    /// Writes a tagged copy of the file at path `file` to path `output`.
    ///
    /// - Returns: `nil` when done, else the warning that says why the file stays as it is.
    func tag(_ track: Track, file: String, writingTo output: String) async -> String? {
        var tags = Self.tags(for: track)
        // A file that cannot be tagged (not MP4 nor WAV by its bytes) needs no cover.
        if let url = track.artworkURL, let artwork, Self.isTaggable(file: file) {
            tags.cover = await artwork.artwork(for: url)
        }
        do {
            let format = try MediaTagger.tagFile(atPath: file, writingToPath: output, tags: tags)
            logger.debug(
                "tagged", metadata: ["track": "\(track.id)", "format": "\(format.rawValue)", "cover": "\(tags.cover != nil)"])
            return nil
        } catch {
            // Nothing of `output` stays: MediaTagger writes it last and removes it when the write fails.
            // A notice, not a warning: the returned warning reaches the user with the download
            // (the command line's completion line, the page's library), once.
            logger.notice("kept without tags", metadata: ["track": "\(track.id)", "reason": "\(error.message)"])
            return "kept as downloaded, without tags: \(error.message)"
        }
    }

    /// Notes which transfer downloads which track, and starts fetching their covers (when tags
    /// are written), so they are ready when the downloads end; the tagging step then shares a
    /// fetch or finds the cover cached.
    func expect(_ downloads: [(track: Track, transfer: TransferID)]) {
        guard writesTags else { return }
        tracks.withLock { tracks in
            tracks.reserveCapacity(tracks.count + downloads.count)
            for (track, transfer) in downloads { tracks[transfer] = track }
        }
        guard let artwork else { return }
        // Only for previews whose name says they can be tagged; the others' bytes decide at the end.
        let covers = downloads.map(\.track).filter(Self.looksTaggable).compactMap(\.artworkURL)
        for url in covers { Task { _ = await artwork.artwork(for: url) } }
    }

    /// File extensions of formats tags are written into.
    static let taggableExtensions: Set<String> = ["m4a", "mp4", "m4b", "m4p", "wav"]

    /// Whether a track's preview, by its URL, is of a format tags are written into.
    static func looksTaggable(_ track: Track) -> Bool {
        taggableExtensions.contains(LibraryNaming.fileExtension(previewURL: track.previewURL))
    }

    /// Whether the file at `path` is MP4 or WAV, by its first bytes.
    static func isTaggable(file path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 12)).flatMap { MediaFormat.detect($0) } != nil
    }

    /// Forgets the track of a transfer that will not finish (cancelled).
    func forget(_ transfer: TransferID) {
        tracks.withLock { _ = $0.removeValue(forKey: transfer) }
    }

    /// The warning of a finished download, once (when it is filed in the library).
    func takeWarning(for trackID: Int) -> String? {
        warnings.withLock { $0.removeValue(forKey: trackID) }
    }

    /// Stops fetching artwork.
    func shutdown() async { await artwork?.shutdown() }

    /// A track's tags, as the catalog describes it.
    static func tags(for track: Track) -> TrackTags {
        TrackTags(
            title: track.name, artist: track.artist, album: track.album, genre: track.genre,
            date: track.releaseDate.map(Self.day), trackNumber: track.trackNumber.map { TrackNumber($0, of: track.trackCount) })
    }

    /// A date as `yyyy-MM-dd` (UTC, as the catalog gives release dates).
    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
