import ArgumentParser
import HalfTunesKit

/// `halftunes tag [ID...]`: writes tags and cover art into library files downloaded without them.
struct TagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag",
        abstract: "Write title, artist, album, genre, date and cover art into library files (all of them when no id is given).")

    @Argument(help: "Track ids in the library (default: every track in it).")
    var ids: [Int] = []

    @OptionGroup var homeOptions: HomeOptions

    func validate() throws {
        guard ids.allSatisfy({ $0 > 0 }) else { throw ValidationError("track ids are positive numbers") }
    }

    func run() async throws {
        Terminal.bootstrapLogging()
        try await reportingFailures {
            try await homeOptions.withControl(downloading: false) { control in
                // Oldest first: each file tagged counts as a change, and the library lists the
                // latest change first, so this keeps its order.
                let wanted = ids.isEmpty ? try await control.listing().library.map(\.id).reversed() : ids
                guard !wanted.isEmpty else {
                    Terminal.write("The library is empty: nothing to tag.\n")
                    return
                }
                var kept = 0
                for id in wanted {
                    let document = try await control.retag(id)
                    let title = "\(DisplayWidth.printable(document.name)) — \(DisplayWidth.printable(document.artist))"
                    if let warning = document.warning {
                        kept += 1
                        Terminal.write("\(title): \(warning)\n")
                    } else {
                        Terminal.write("\(title): tagged\n")
                    }
                }
                if kept > 0 { Terminal.write("\(kept) of \(wanted.count) files kept without tags.\n") }
            }
        }
    }
}
