import Foundation
import HalfTunesKit
import HalfTunesTerminal
import HalfTunesWeb

/// `download --detach`: the ids handed to the agent, which downloads them
/// after this command has returned.
enum DetachedDownload {
    static func run(_ command: DownloadCommand) async throws {
        let arguments = command.downloading.agentArguments(catalog: command.catalogOptions)
        // Given arguments, an agent is started when none runs: never nil.
        var ids = command.trackIDs
        // An agent started for them looks the first slice up as it starts.
        let lookAhead = command.album.isEmpty ? Array(BatchFeed(ids).ids.prefix(APIRoute.maximumBatch)) : []
        guard let (control, _) = try await command.homeOptions.remoteControl(agentArguments: arguments, lookAhead: lookAhead)
        else { return }
        for album in command.album { ids += try await AlbumDownload.trackIDs(of: album, through: control) }
        var seen = Set<Int>()
        ids = ids.filter { seen.insert($0).inserted }
        var unknown: [Int] = []
        var queued: [Int] = []
        var start = 0
        while start < ids.count {
            let slice = Array(ids[start..<min(ids.count, start + APIRoute.maximumBatch)])
            start += slice.count
            let (started, missing) = try await KnownTracks.start(slice) { try await control.start($0) }
            for id in missing { Terminal.warn("Track \(id) — not in the catalog") }
            queued += started.map(\.id)
            unknown += missing
        }
        let owner =
            switch control.owner {
            case .agent(let pid): "the HalfTunes agent (process \(pid))"
            case .thisProcess: "this process"
            }
        if !queued.isEmpty {
            let list = queued.map(String.init).joined(separator: ",")
            Terminal.write(
                "\(queued.count) download\(queued.count == 1 ? "" : "s") handed to \(owner).\n"
                    + "Follow them: halftunes list, or halftunes wait \(list)\n")
        }
        if !unknown.isEmpty { throw DownloadError.unknownTracks(unknown) }
    }
}
