import Foundation

/// The media fixtures in `../shared/fixtures/media/` (beside the repository, not in it).
public enum MediaFixtures {
    /// The fixtures folder.
    public static let folder: URL = Fixtures.folder.deletingLastPathComponent().appendingPathComponent("media")

    /// Whether the fixtures are there (tests that need them are skipped, saying why, when not).
    public static var available: Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("preview-moov-first.m4a").path)
    }

    /// A fixture's URL.
    public static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }
}

/// ffprobe and ffmpeg (Debian's ffmpeg package): the independent reader that tests hold the tag
/// writer to.
public enum FFmpeg {
    /// Whether both programs are on this machine.
    public static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")
    }

    /// What ffprobe sees in a file.
    public struct Probe: Sendable {
        /// The container's tags, keys in lower case (`title`, `artist`, `album`, `genre`, `date`, `track`…).
        public var tags: [String: String]
        /// The duration in seconds, as ffprobe prints it.
        public var duration: String
        /// Attached pictures: codec name (`mjpeg`, `png`) and size.
        public var pictures: [(codec: String, width: Int, height: Int)]
        /// Audio streams: codec name.
        public var audioCodecs: [String]
    }

    /// Probes a file with `ffprobe -show_format -show_streams`.
    public static func probe(_ file: URL) async throws -> Probe {
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/ffprobe"),
            ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", file.path])
        guard result.status == 0 else { throw ToolFailure(tool: "ffprobe", message: result.stderr) }
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        let format = json["format"] as? [String: Any] ?? [:]
        var tags: [String: String] = [:]
        for (key, value) in format["tags"] as? [String: Any] ?? [:] { tags[key.lowercased()] = "\(value)" }
        var pictures: [(String, Int, Int)] = []
        var audio: [String] = []
        for stream in json["streams"] as? [[String: Any]] ?? [] {
            let codec = stream["codec_name"] as? String ?? "?"
            let disposition = stream["disposition"] as? [String: Any] ?? [:]
            if (disposition["attached_pic"] as? Int) == 1 {
                pictures.append((codec, stream["width"] as? Int ?? 0, stream["height"] as? Int ?? 0))
            } else if stream["codec_type"] as? String == "audio" {
                audio.append(codec)
            }
        }
        return Probe(tags: tags, duration: format["duration"] as? String ?? "", pictures: pictures, audioCodecs: audio)
    }

    /// The MD5 of a file's decoded audio (`ffmpeg -f md5`): equal before and after tagging when
    /// not one sample was touched.
    public static func audioMD5(_ file: URL) async throws -> String {
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/ffmpeg"), ["-v", "error", "-i", file.path, "-map", "0:a", "-f", "md5", "-"])
        guard result.status == 0 else { throw ToolFailure(tool: "ffmpeg", message: result.stderr) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct ToolFailure: Error, CustomStringConvertible {
        let tool: String
        let message: String
        var description: String { "\(tool) failed: \(message.prefix(300))" }
    }
}

/// The audio of a WAV file: the bytes of its `data` chunk, found by a walk of the RIFF chunks
/// written here for the tests (not MediaTags' parser). Tags added around the audio leave them
/// as they were.
public enum WAVAudio {
    /// The `data` chunk's bytes, or `nil` when `file` is not a WAV file with one.
    public static func samples(_ file: Data) -> Data? {
        let bytes = [UInt8](file)
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46], bytes[8..<12] == [0x57, 0x41, 0x56, 0x45] else {
            return nil
        }
        var offset = 12
        while offset + 8 <= bytes.count {
            let size =
                Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            if bytes[offset..<offset + 4] == [0x64, 0x61, 0x74, 0x61] {  // "data"
                return offset + 8 + size <= bytes.count ? Data(bytes[offset + 8..<offset + 8 + size]) : nil
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }

    /// The SHA-256 of a WAV file's audio (of the whole file when it is not WAV).
    public static func audioHash(_ file: Data) -> String { sha256Hex(samples(file) ?? file) }
}
