import Foundation
import HalfTunesKit
import Synchronization

/// Why the audio player did not play: no audio device, or its own failure.
public struct PlaybackFailure: Error, Sendable, CustomStringConvertible {
    /// One line for the user.
    public let description: String
}

/// A player's standard output and error, kept from the terminal (the last 64 KiB of them) and
/// read when it ends: whether it found no audio device, what its last line said.
final class PlayerOutput: Sendable {
    /// Phrases players and their audio libraries (ALSA, PulseAudio, SDL) print when there is no
    /// device to play on.
    static let noDevicePhrases = [
        "cannot find card", "audio open failed", "could not open/initialize audio device", "audio open error",
        "unknown pcm", "couldn't open audio device", "no audio device", "connection failure", "failed to initialize audio",
    ]

    private final class Tail: Sendable { let data = Mutex(Data()) }
    private let kept = Tail()
    private let ended: AsyncStream<Void>
    let pipe = Pipe()

    /// Starts reading the pipe, off Swift's concurrency threads, until the player closes it.
    init() {
        let (ended, end) = AsyncStream<Void>.makeStream()
        self.ended = ended
        let (kept, handle) = (kept, pipe.fileHandleForReading)
        DispatchQueue(label: "halftunes.play.output").async {
            while let chunk = try? handle.read(upToCount: 16 << 10), !chunk.isEmpty {
                kept.data.withLock { data in
                    data.append(chunk)
                    if data.count > 64 << 10 { data.removeFirst(data.count - (64 << 10)) }
                }
            }
            try? handle.close()  // Foundation's Process never releases its pipes: close ours
            end.finish()
        }
    }

    /// The text so far.
    var text: String {
        String(decoding: kept.data.withLock { $0 }, as: UTF8.self)
    }

    /// Waits until the output has ended (the player's last words read), two seconds at most: a
    /// process the player started may hold the pipe open after it has gone.
    func end() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [ended] in for await _ in ended {} }
            group.addTask { try? await Task.sleep(for: .seconds(2)) }
            await group.next()
            group.cancelAll()
        }
    }

    /// The failure the player's status and output tell of, if any: a player that says it found no
    /// device did not play, whatever its status (ffplay ends with 0 then).
    func failure(status: Int32, player: String) async -> PlaybackFailure? {
        await end()
        let lower = text.lowercased()
        if Self.noDevicePhrases.contains(where: lower.contains) {
            return PlaybackFailure(
                description: "no audio device found: \(player) could not open one (--verbose shows what it said)")
        }
        guard status != 0 else { return nil }
        let last = text.split(whereSeparator: \.isNewline).last.map {
            String($0.trimmingCharacters(in: .whitespaces).prefix(160))
        }
        return PlaybackFailure(
            description: "\(player) stopped with status \(status)" + (last.map { ": \($0)" } ?? "")
                + " (--verbose shows all it said)")
    }
}
