import HalfTunesKit

/// Joins long runs of track ids on the command line into comma-separated lists before the
/// argument parser sees them.
///
/// swift-argument-parser takes time quadratic in the number of values of one array argument; as
/// lists, thousands of ids are a few dozen arguments.
///
/// Only the ids of `download` are joined, and never the first number after an option, which
/// may be that option's value (`--home 7 1001 1019` joins `1001,1019` only).
public enum TrackIDCompaction {
    /// Ids joined into one argument.
    public static let idsPerArgument = 100

    /// `arguments` (without the program's name) with runs of ids joined.
    public static func compact(_ arguments: [String]) -> [String] {
        guard arguments.first == "download" else { return arguments }
        var result: [String] = []
        var run: [String] = []
        var afterOption = false
        func endRun() {
            var start = run.startIndex
            while start < run.endIndex {
                let end = min(start + idsPerArgument, run.endIndex)
                result.append(run[start..<end].joined(separator: ","))
                start = end
            }
            run.removeAll()
        }
        for argument in arguments {
            if !argument.isEmpty, argument.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                if afterOption {
                    result.append(argument)
                } else {
                    run.append(argument)
                }
                afterOption = false
                continue
            }
            endRun()
            result.append(argument)
            afterOption = argument.hasPrefix("-") && argument != "--" && !argument.contains("=")
        }
        endRun()
        return result
    }
}
