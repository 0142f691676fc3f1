import ArgumentParser
import Foundation

/// Bad command-line usage, said the same way whatever the option or the check: one line naming
/// the value, a second pointing to the command's help, exit 64 (as `sysexits.h`'s `EX_USAGE`).
enum UsageErrors {
    /// Runs the command line `arguments` as ArgumentParser's `main` does, with usage errors said
    /// as above (help, version and every other exit are ArgumentParser's own).
    static func run(_ arguments: [String]) async -> Never {
        do {
            var command = try HalfTunes.parseAsRoot(arguments)
            if var command = command as? AsyncParsableCommand { try await command.run() } else { try command.run() }
            HalfTunes.exit()
        } catch {
            guard HalfTunes.exitCode(for: error) == .validationFailure else { HalfTunes.exit(withError: error) }
            let name = arguments.first { argument in
                HalfTunes.configuration.subcommands.contains { $0._commandName == argument }
            }
            Terminal.warn(line(HalfTunes.message(for: error)))
            let help = ["halftunes", name, "--help"].compactMap { $0 }.joined(separator: " ")
            try? FileHandle.standardError.write(contentsOf: Data("See '\(help)'.\n".utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
    }

    /// ArgumentParser's message as one line in the house style: lower-case first letter, no
    /// quotes around an option's synopsis.
    static func line(_ message: String) -> String {
        let text = message.split(separator: "\n").first.map(String.init) ?? message
        guard let first = text.first, first.isUppercase, !text.hasPrefix("HALFTUNES") else { return text }
        return first.lowercased() + text.dropFirst()
    }
}

/// A whole number within `range`, as an option's value: `abc` and an out-of-range number are
/// refused with the same words ("a number from 1 to 200").
struct NumberIn: CustomStringConvertible, Error {
    let description: String

    /// A transform for `@Option(transform:)` and `@Argument(transform:)`; `what` names the value
    /// when more than a number is to be said ("a track id").
    static func parser(_ range: ClosedRange<Int>, what: String? = nil) -> @Sendable (String) throws -> Int {
        let number =
            range.upperBound == Int.max
            ? "a whole number of at least \(range.lowerBound)" : "a whole number from \(range.lowerBound) to \(range.upperBound)"
        let description = what.map { "\($0) (\(number))" } ?? number
        return { text in
            guard let value = Int(text), range.contains(value) else { throw NumberIn(description: description) }
            return value
        }
    }

    /// A track id argument: a positive number.
    static let trackID = parser(1...Int.max, what: "a track id")
    /// An album (or track) id argument.
    static let albumID = parser(1...Int.max, what: "an album or track id")
    /// An artist (or track) id argument.
    static let artistID = parser(1...Int.max, what: "an artist or track id")
}
