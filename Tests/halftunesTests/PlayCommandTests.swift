import DemoCatalog
import Foundation
import TestSupport
import Testing

/// `halftunes play ID` on a track still downloading, with a stand-in player on the PATH that
/// keeps what it is given: the bytes the player got must be the server's, all of them.
@Suite("halftunes play", .timeLimit(.minutes(1)))
struct PlayCommandTests {
    /// A folder with an `mpv` that writes its arguments and its standard input to files.
    private func recordingPlayer(in folder: URL) throws -> (path: String, heard: URL, arguments: URL) {
        let bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let heard = folder.appendingPathComponent("heard.bin")
        let arguments = folder.appendingPathComponent("arguments.txt")
        let script = bin.appendingPathComponent("mpv")
        try "#!/bin/sh\necho \"$@\" > '\(arguments.path)'\ncat > '\(heard.path)'\n".write(
            to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return (bin.path + ":/usr/bin:/bin", heard, arguments)
    }

    private func environment(_ home: URL, catalog: URL, path: String? = nil) -> [String: String] {
        var environment = ["HALFTUNES_HOME": home.path, "HALFTUNES_CATALOG": catalog.absoluteString]
        environment["PATH"] = path
        return environment
    }

    /// Starts a slow `download ID`, runs `play ID` while it goes on, and checks that the player
    /// heard every byte the server sent. `beforeDownload` runs first (to start a server, say).
    private func playWhileDownloading(
        _ id: Int, beforeDownload: (_ home: URL, _ catalog: URL) async throws -> Void = { _, _ in }
    ) async throws {
        try await withDemoCatalog { catalog, url in
            try await withTemporaryDirectory { folder in
                let home = folder.appendingPathComponent("home")
                let player = try recordingPlayer(in: folder)
                try await beforeDownload(home, url)
                // The download waits at 400 KB until the player has started, whatever the machine's speed.
                catalog.setFaults(PreviewFaults(bytesPerSecond: 300_000), for: id)
                catalog.hold(id, atByte: 400_000)
                let download = try ChildProcess(
                    try BuiltProducts.halftunes, ["download", "\(id)", "--json"], environment: environment(home, catalog: url))
                _ = await download.waitForLine { $0.contains(#""event":"progress""#) ? true : nil }
                let playing = try ChildProcess(
                    try BuiltProducts.halftunes, ["play", "\(id)"],
                    environment: environment(home, catalog: url, path: player.path))
                #expect(await playing.waitForLine { $0.contains("while it downloads") ? true : nil } != nil)
                catalog.release(id)
                let play = await playing.wait()
                #expect(play.status == 0, "\(play.stderr)")
                #expect(await download.wait().status == 0)
                let heard = try Data(contentsOf: player.heard)
                let sent = try #require(await catalog.preview(for: id)).data
                #expect(sameBytes(heard, sent), "heard \(heard.count) bytes of \(sent.count)")
                #expect(try String(contentsOf: player.arguments, encoding: .utf8).hasSuffix(" -\n"))
            }
        }
    }

    @Test("beside a foreground download (no server): the player gets the partial file as it grows, to the end")
    func besideForegroundDownload() async throws {
        try await playWhileDownloading(1003)
    }

    @Test("with serve running: the player gets the server's stream of the download, to the end")
    func throughServer() async throws {
        var server: ChildProcess?
        try await playWhileDownloading(1004) { home, url in
            server = try ChildProcess(
                try BuiltProducts.halftunes, ["serve", "--port", "0"], environment: environment(home, catalog: url))
            _ = await server?.waitForLine { $0.contains("http://127.0.0.1:") ? true : nil }
        }
        server?.signal(SIGTERM)
        #expect(await server?.wait().status == 0)
    }

    /// A folder with a stand-in `name` player that prints `noise` on standard error and exits `status`.
    private func noisyPlayer(_ name: String, noise: [String], status: Int32, in folder: URL) throws -> String {
        let bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let script = bin.appendingPathComponent(name)
        let lines = noise.map { "echo '\($0)' >&2" }.joined(separator: "\n")
        try "#!/bin/sh\n\(lines)\nexit \(status)\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return bin.path + ":/usr/bin:/bin"
    }

    /// What mpv printed on a machine with no sound card (its ALSA lines, 43 in all), and ffplay.
    private static let alsaNoise =
        (1...40).map { "ALSA lib confmisc.c:855:(parse_card) cannot find card '0' (\($0))" } + [
            "[ao/alsa] Playback open error: No such file or directory", "Could not open/initialize audio device -> no sound.",
            "Audio: no audio",
        ]

    @Test(
        "no audio device: one line naming the player, exit 9, the player's noise kept out unless --verbose",
        arguments: [
            ("mpv", alsaNoise, Int32(2)),
            ("ffplay", ["SDL_OpenAudio: No available audio device", "No more combinations to try, audio open failed"], Int32(0)),
        ])
    func noAudioDevice(player: String, noise: [String], status: Int32) async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let home = folder.appendingPathComponent("home")
                #expect(try await runHalftunes(["download", "1002"], home: home, catalog: url).status == 0)
                let path = try noisyPlayer(player, noise: noise, status: status, in: folder)
                // Only the stand-in on the PATH: /usr/bin may hold a real player, found after it.
                let play = try await ChildProcess.run(
                    try BuiltProducts.halftunes, ["play", "1002"], environment: environment(home, catalog: url, path: path))
                #expect(play.status == 9)
                #expect(play.stdout == "Playing Paper Boats — The Paper Lanterns (\(player))\n")
                #expect(
                    play.stderr
                        == "halftunes: no audio device found: \(player) could not open one (--verbose shows what it said)\n")
                let verbose = try await ChildProcess.run(
                    try BuiltProducts.halftunes, ["play", "1002", "--verbose"],
                    environment: environment(home, catalog: url, path: path))
                #expect(verbose.stderr.contains(noise[noise.count - 1]))
                #expect(verbose.status == (status == 0 ? 0 : 9))
            }
        }
    }

    @Test("a player that fails otherwise: its status and last line in one line, exit 9")
    func playerFails() async throws {
        try await withDemoCatalog { _, url in
            try await withTemporaryDirectory { folder in
                let home = folder.appendingPathComponent("home")
                #expect(try await runHalftunes(["download", "1002"], home: home, catalog: url).status == 0)
                let path = try noisyPlayer("mpv", noise: ["loading", "Errors when loading file: broken"], status: 2, in: folder)
                let play = try await ChildProcess.run(
                    try BuiltProducts.halftunes, ["play", "1002"], environment: environment(home, catalog: url, path: path))
                #expect(play.status == 9)
                #expect(
                    play.stderr
                        == "halftunes: mpv stopped with status 2: Errors when loading file: broken (--verbose shows all it said)\n"
                )
            }
        }
    }
}
