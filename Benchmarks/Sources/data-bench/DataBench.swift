import Foundation
import Transfers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `data-bench URL COUNT ROUNDS`: COUNT data tasks of `URL` one after another (the tutorial's
/// search, typed by a user), with Foundation's URLSession and with ResumableURLSession, in
/// alternating rounds. Prints one JSON line: each one's median seconds a round, and the bytes of
/// one answer (checked the same from both).
@main
struct DataBench {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.count == 3, let url = URL(string: arguments[arguments.startIndex]),
            let count = Int(arguments[arguments.startIndex + 1]), let rounds = Int(arguments[arguments.startIndex + 2])
        else {
            FileHandle.standardError.write(Data("usage: data-bench URL COUNT ROUNDS\n".utf8))
            exit(2)
        }
        let foundation = URLSession(configuration: .default)
        let resumable = ResumableURLSession(configuration: .default)
        var times: (foundation: [Double], resumable: [Double]) = ([], [])
        var sizes: Set<Int> = []
        // One of each first, to open their connections: rounds measure answers, not handshakes.
        sizes.insert(try await foundation.data(from: url).0.count)
        sizes.insert(try await resumable.data(from: url).0.count)
        for _ in 0..<rounds {
            var started = ContinuousClock.now
            for _ in 0..<count { sizes.insert(try await foundation.data(from: url).0.count) }
            times.foundation.append((ContinuousClock.now - started) / .seconds(1))
            started = ContinuousClock.now
            for _ in 0..<count { sizes.insert(try await resumable.data(from: url).0.count) }
            times.resumable.append((ContinuousClock.now - started) / .seconds(1))
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let bytes = sizes.count == 1 ? sizes.first! : -1
        print(
            #"{"foundationSeconds":\#(median(times.foundation)),"resumableSeconds":\#(median(times.resumable)),"bytes":\#(bytes)}"#
        )
        resumable.invalidateAndCancel()
    }
}
