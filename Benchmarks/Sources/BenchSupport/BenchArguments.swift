import Foundation

/// What the bench programs take: `URL-LIST OUTPUT-DIR [--concurrency N]` and flags of their own.
public struct BenchArguments {
    /// The URLs to download, one per line of the list file.
    public let urls: [URL]
    /// Where the files go.
    public let output: URL
    /// Downloads at once (`--concurrency N`, default 4).
    public let concurrency: Int
    private let flags: Set<String>
    private let values: [String: String]

    /// Parses the command line, exiting with the usage line when it is wrong.
    ///
    /// - Parameter optionsWithValues: The program's own options that take a value (`--pause-at`).
    public init(usage: String, optionsWithValues: Set<String> = []) throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        var flags = Set<String>()
        var values: [String: String] = [:]
        var positional: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--concurrency" || optionsWithValues.contains(argument), index + 1 < arguments.count {
                values[argument] = arguments[index + 1]
                index += 2
            } else {
                if argument.hasPrefix("--") { flags.insert(argument) } else { positional.append(argument) }
                index += 1
            }
        }
        guard positional.count == 2 else {
            FileHandle.standardError.write(Data("usage: \(usage)\n".utf8))
            exit(2)
        }
        urls = try String(contentsOfFile: positional[0], encoding: .utf8).split(separator: "\n").compactMap {
            URL(string: String($0))
        }
        output = URL(fileURLWithPath: positional[1])
        concurrency = values["--concurrency"].flatMap { Int($0) } ?? 4
        self.flags = flags
        self.values = values
    }

    /// Whether a flag was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of an option, if given.
    public func value(_ name: String) -> String? { values[name] }
}

/// The process's peak resident set (VmHWM), in KiB.
public func peakRSS() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return -1 }
    return Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "") ?? -1
}
